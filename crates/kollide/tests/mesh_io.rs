use kollide::mesh::io;
use std::path::Path;
#[test]
fn scratch() {
    let mut files = Vec::new();
    for d in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/parser_cases")).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() { files.push(f.unwrap().path()); }
    }
    files.sort();
    for f in files {
        match io::load(&f) {
            Ok(m) => println!("{}: OK {} v {} t", f.display(), m.vertices.len(), m.triangles.len()),
            Err(e) => println!("{}: ERR {e}", f.display()),
        }
    }
}
