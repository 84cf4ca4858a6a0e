//! The OFF loader on raw bytes ([`kollide_fuzz::check_loader`]).
#![no_main]

use kollide::mesh::io::read_off;
use kollide_fuzz::check_loader;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_loader(data, |bytes| read_off(bytes)));
