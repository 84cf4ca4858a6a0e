//! STL reader (ascii and binary) on top of the `stl_io` crate.
//!
//! STL stores every triangle with its own three corners; `stl_io` welds corners with bit-identical
//! coordinates into shared vertices, so a watertight STL comes out as a closed indexed mesh.
//!
//! Ascii or binary is decided by the size: a file of exactly `84 + 50 * count` bytes, where
//! `count` is the little-endian `u32` at byte 80, is binary even when its free-form header starts
//! with `solid` (many exporters write that); otherwise a file that starts with `solid` and has no
//! zero byte in its first 4 KiB is ascii, and anything else is binary. Ascii files may hold
//! several `solid ... endsolid` blocks (all are read), a `solid` line without a name, and may
//! lack the final `endsolid`.

use super::{MeshData, MeshFormat, MeshLoadError, load_with, read_all, validate};
use crate::math::Vec3;
use std::io::{Cursor, Read};
use std::path::Path;

/// Loads an STL file (see [`read_stl`]) and validates it.
pub fn load_stl(path: &Path) -> Result<MeshData, MeshLoadError> {
    load_with(path, read_stl)
}

/// Reads an ascii or binary STL mesh from `reader` (read to the end into memory) and validates
/// it.
///
/// Errors: [`MeshLoadError::Parse`] for a malformed ascii facet or a binary file shorter than
/// its triangle count says (no line numbers: `stl_io` does not report them);
/// [`MeshLoadError::NoTriangles`] for a file with no facet; [`MeshLoadError::NonFiniteVertex`]
/// for NaN or infinite coordinates in a binary file (the ascii parser rejects them as a parse
/// error).
pub fn read_stl(reader: impl Read) -> Result<MeshData, MeshLoadError> {
    let mut bytes = read_all(reader)?;
    if bytes.is_empty() {
        return Err(parse_err("the file is empty"));
    }
    let binary_size =
        bytes.get(80..84).map(|c| 84 + 50 * u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])));
    let looks_ascii =
        bytes.trim_ascii_start().starts_with(b"solid") && !bytes[..bytes.len().min(4096)].contains(&0);
    let is_binary = binary_size == Some(bytes.len() as u64) || !looks_ascii;
    if is_binary {
        // `stl_io` sniffs ascii by a leading "solid "; the 80 header bytes carry no data, so
        // blank them to route the file to its binary reader.
        let header = bytes.len().min(80);
        bytes[..header].fill(b' ');
    } else {
        bytes = normalize_ascii(&bytes);
    }
    let mesh = stl_io::read_stl(&mut Cursor::new(bytes)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            let kind = if is_binary { "binary" } else { "ascii" };
            parse_err(format!("the {kind} file ends early ({e})"))
        } else {
            parse_err(e.to_string())
        }
    })?;
    let vertices = mesh.vertices.iter().map(|v| Vec3::from_array(v.0)).collect();
    let mut triangles = Vec::with_capacity(mesh.faces.len());
    for face in &mesh.faces {
        // stl_io numbers at most one vertex per corner read, so 3 * faces < 2^32 unless the
        // file holds more than ~1.4 billion facets (about 70 GB).
        let [a, b, c] = face.vertices.map(|i| u32::try_from(i).unwrap_or(u32::MAX));
        triangles.push([a, b, c]);
    }
    let data = MeshData { vertices, triangles };
    validate(&data)?;
    Ok(data)
}

fn parse_err(message: impl Into<String>) -> MeshLoadError {
    MeshLoadError::parse(MeshFormat::Stl, None, message)
}

/// Rewrites an ascii STL as a single `solid`: one `solid kollide` line, every line that is not a
/// `solid`/`endsolid` line, then `endsolid kollide`. This lets `stl_io` read files with several
/// solids or with a nameless `solid` line.
fn normalize_ascii(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 32);
    out.extend_from_slice(b"solid kollide\n");
    for line in bytes.split(|&b| b == b'\n') {
        let first = line.split(u8::is_ascii_whitespace).find(|w| !w.is_empty());
        if matches!(first, Some(b"solid" | b"endsolid")) {
            continue;
        }
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.extend_from_slice(b"endsolid kollide\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FACET: &str = "facet normal 0 0 1\n outer loop\n  vertex 0 0 0\n  vertex 1 0 0\n  vertex 0 1 0\n \
                         endloop\nendfacet\n";

    fn binary(header: &[u8], count: u32, tris: &[[[f32; 3]; 3]]) -> Vec<u8> {
        let mut b = vec![0u8; 80];
        b[..header.len()].copy_from_slice(header);
        b.extend_from_slice(&count.to_le_bytes());
        for t in tris {
            b.extend_from_slice(&[0u8; 12]);
            for v in t {
                for c in v {
                    b.extend_from_slice(&c.to_le_bytes());
                }
            }
            b.extend_from_slice(&[0u8; 2]);
        }
        b
    }

    const T0: [[f32; 3]; 3] = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    const T1: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]];

    #[test]
    fn ascii_single_multiple_and_nameless_solids() {
        let one = format!("solid one\n{FACET}endsolid one\n");
        let m = read_stl(one.as_bytes()).unwrap();
        assert_eq!((m.vertices.len(), m.triangles.len()), (3, 1));
        let two = format!("solid a\n{FACET}endsolid a\nsolid b\n{FACET}endsolid\nsolid empty\nendsolid\n");
        assert_eq!(read_stl(two.as_bytes()).unwrap().triangles.len(), 2);
        let nameless = format!("solid\r\n{}endsolid", FACET.replace('\n', "\r\n"));
        assert_eq!(read_stl(nameless.as_bytes()).unwrap().triangles.len(), 1);
    }

    #[test]
    fn binary_welds_shared_corners() {
        let m = read_stl(&binary(b"test", 2, &[T0, T1])[..]).unwrap();
        assert_eq!(m.triangles.len(), 2);
        assert_eq!(m.vertices.len(), 4);
    }

    #[test]
    fn binary_with_solid_header_is_binary() {
        let bytes = binary(b"solid exported by a CAD tool", 2, &[T0, T1]);
        assert_eq!(read_stl(&bytes[..]).unwrap().triangles.len(), 2);
    }

    #[test]
    fn malformed_input() {
        assert!(matches!(read_stl(&b""[..]), Err(MeshLoadError::Parse { .. })));
        assert!(matches!(read_stl(&b"garbage"[..]), Err(MeshLoadError::Parse { .. })));
        // Count says 1000, data holds 2.
        let err = read_stl(&binary(b"x", 1000, &[T0, T1])[..]).unwrap_err();
        assert!(err.to_string().contains("ends early"), "{err}");
        // Header without triangles.
        assert!(matches!(read_stl(&binary(b"x", 0, &[])[..]), Err(MeshLoadError::NoTriangles)));
        assert!(matches!(read_stl(&b"solid x\nendsolid x\n"[..]), Err(MeshLoadError::NoTriangles)));
        // Broken ascii facet and truncated ascii file.
        let broken = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0\nendloop\nendfacet\nendsolid\n";
        assert!(matches!(read_stl(broken.as_bytes()), Err(MeshLoadError::Parse { .. })));
        let truncated = "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\n";
        assert!(matches!(read_stl(truncated.as_bytes()), Err(MeshLoadError::Parse { .. })));
        // NaN corners in binary.
        let nan = [[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        assert!(matches!(
            read_stl(&binary(b"x", 1, &[nan])[..]),
            Err(MeshLoadError::NonFiniteVertex { index: 0 })
        ));
    }
}
