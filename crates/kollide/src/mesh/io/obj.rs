//! Wavefront OBJ reader on top of the `tobj` crate.
//!
//! Only geometry is read: `v` lines (an optional `w` divides x, y, z; trailing vertex colors are
//! ignored) and `f` lines (`v`, `v/vt`, `v//vn` or `v/vt/vn` corners; only the position index is
//! used; negative indices count back from the last vertex defined so far). Faces are
//! fan-triangulated by tobj's `triangulate` option; faces with fewer than three corners, `l`
//! lines and `p` lines give no triangle. Groups, objects and materials are ignored, so the whole
//! file is one mesh and a vertex shared by faces of different groups stays shared.
//!
//! The text may be UTF-8 (with or without a byte-order mark) or UTF-16 with a byte-order mark.

use super::{MeshData, MeshFormat, MeshLoadError, load_with, read_all, validate};
use crate::math::Vec3;
use std::io::{Cursor, Read};
use std::path::Path;

/// Loads an OBJ file (see [`read_obj`]) and validates it. Material libraries are not opened.
pub fn load_obj(path: &Path) -> Result<MeshData, MeshLoadError> {
    load_with(path, read_obj)
}

/// Reads an OBJ mesh from `reader` (read to the end into memory) and validates it.
///
/// Vertices keep their order of first use by a face; vertices no face uses are dropped.
///
/// Errors: [`MeshLoadError::Parse`] with the line for a malformed `v` or `f` line;
/// [`MeshLoadError::IndexOutOfRange`] for a face corner that names no vertex, with `index` the
/// 0-based vertex it resolves to (`f 0` gives -1), `vertex_count` the number of `v` lines and
/// `triangle` the index the face's first triangle would get; [`MeshLoadError::NoTriangles`]
/// when no face has three or more corners; [`MeshLoadError::NonFiniteVertex`] for NaN or
/// infinite coordinates (numbered after unused vertices are dropped).
pub fn read_obj(reader: impl Read) -> Result<MeshData, MeshLoadError> {
    let text = decode(&read_all(reader)?);
    let geometry = geometry_only(&text)?;

    let options =
        tobj::LoadOptions { triangulate: true, single_index: false, ignore_points: true, ignore_lines: true };
    let mut cursor = Cursor::new(geometry.as_bytes());
    let (models, _materials) =
        tobj::load_obj_buf(&mut cursor, &options, |_| Err(tobj::LoadError::OpenFileFailed)).map_err(|e| {
            // tobj stops right after reading the offending line: count the lines consumed.
            let consumed = &geometry.as_bytes()[..cursor.position() as usize];
            let line =
                consumed.iter().filter(|&&b| b == b'\n').count() + usize::from(!consumed.ends_with(b"\n"));
            MeshLoadError::parse(MeshFormat::Obj, Some(line), e.to_string())
        })?;

    let mut data = MeshData::default();
    for model in &models {
        let base = data.vertices.len() as u32;
        data.vertices.extend(model.mesh.positions.chunks_exact(3).map(Vec3::from_slice));
        data.triangles
            .extend(model.mesh.indices.chunks_exact(3).map(|t| [base + t[0], base + t[1], base + t[2]]));
    }
    validate(&data)?;
    Ok(data)
}

/// Decodes UTF-16 (with a byte-order mark) or UTF-8 (an optional mark is dropped; invalid bytes
/// become U+FFFD, which only matters inside numbers, where it is then a parse error).
fn decode(bytes: &[u8]) -> String {
    let utf16 = |big: bool| {
        let units = bytes[2..]
            .chunks_exact(2)
            .map(|c| if big { u16::from_be_bytes([c[0], c[1]]) } else { u16::from_le_bytes([c[0], c[1]]) });
        char::decode_utf16(units).map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER)).collect()
    };
    match bytes {
        [0xFE, 0xFF, ..] => utf16(true),
        [0xFF, 0xFE, ..] => utf16(false),
        [0xEF, 0xBB, 0xBF, rest @ ..] => String::from_utf8_lossy(rest).into_owned(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Keeps only what tobj needs for positions and triangles, line for line (so tobj's line numbers
/// are the file's): `v x y z [w]` and `f` lines with three or more corners reduced to their
/// position index; every other line becomes empty. Checks face indices on the way, since tobj
/// reports an out-of-range index without saying which.
fn geometry_only(text: &str) -> Result<String, MeshLoadError> {
    let vertex_count = text.lines().filter(|l| l.split_whitespace().next() == Some("v")).count();
    let mut out = String::with_capacity(text.len());
    let mut defined = 0usize; // `v` lines so far, for relative indices
    let mut triangle = 0usize; // triangles produced by the faces so far
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default();
        let mut words = line.split_whitespace();
        match words.next() {
            Some("v") => {
                defined += 1;
                let values: Vec<&str> = words.collect();
                // x y z r g b: drop the colors (tobj rejects them when only some vertices have one).
                let keep = if values.len() >= 6 { 3 } else { values.len() };
                out.push('v');
                for value in &values[..keep] {
                    out.push(' ');
                    out.push_str(value);
                }
            }
            Some("f") => {
                let corners: Vec<&str> = words.map(|w| w.split('/').next().unwrap_or(w)).collect();
                if corners.len() >= 3 {
                    for corner in &corners {
                        let written: i64 = corner.parse().map_err(|_| {
                            MeshLoadError::parse(
                                MeshFormat::Obj,
                                Some(number + 1),
                                format!("'{corner}' is not a vertex index"),
                            )
                        })?;
                        // OBJ indices are 1-based; negative ones count back from the newest vertex.
                        let index = if written < 0 { defined as i64 + written } else { written - 1 };
                        if index < 0 || index >= vertex_count as i64 {
                            return Err(MeshLoadError::IndexOutOfRange { triangle, index, vertex_count });
                        }
                    }
                    triangle += corners.len() - 2;
                    out.push('f');
                    for corner in &corners {
                        out.push(' ');
                        out.push_str(corner);
                    }
                }
            }
            _ => {}
        }
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<MeshData, MeshLoadError> {
        read_obj(text.as_bytes())
    }

    const SQUARE: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

    #[test]
    fn polygons_are_fans_and_groups_share_vertices() {
        let text =
            format!("{SQUARE}o a\ng one\nusemtl red\nf 1 2 3\ng two\nusemtl blue\nf 1/1/1 3/2/1 4//1\n");
        let m = read(&text).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.triangles.len(), 2);
        let quad = read(&format!("{SQUARE}f 1 2 3 4\n")).unwrap();
        assert_eq!(quad.triangles, vec![[0, 1, 2], [0, 2, 3]]);
        let pentagon = read(&format!("{SQUARE}v 0.5 2 0\nf -5 -4 -3 -1 -2\n")).unwrap();
        assert_eq!(pentagon.triangles.len(), 3);
    }

    #[test]
    fn w_and_colors() {
        let m = read("v 2 4 6 2 # w = 2\nv 1 0 0 1 0 0\nv 0 1 0 0 1 0\nf 1 2 3\n").unwrap();
        assert_eq!(m.vertices[0], Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(m.vertices[1], Vec3::X);
    }

    #[test]
    fn points_and_lines_give_no_triangles() {
        let text = format!("{SQUARE}p 1 2 3\nl 1 2 3 4\nf 1 2\nf\n");
        assert!(matches!(read(&text), Err(MeshLoadError::NoTriangles)));
        assert!(matches!(read(SQUARE), Err(MeshLoadError::NoTriangles)));
        assert!(matches!(read(""), Err(MeshLoadError::NoTriangles)));
    }

    #[test]
    fn utf16_and_bom() {
        let text = format!("{SQUARE}f 1 2 3\n");
        for big in [true, false] {
            let mut bytes = if big { vec![0xFE, 0xFF] } else { vec![0xFF, 0xFE] };
            for u in text.encode_utf16() {
                bytes.extend_from_slice(&if big { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            assert_eq!(read_obj(&bytes[..]).unwrap().triangles.len(), 1);
        }
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice(text.as_bytes());
        assert_eq!(read_obj(&bytes[..]).unwrap().triangles.len(), 1);
    }

    #[test]
    fn errors_name_line_or_index() {
        let err = read("v 0 0 0\nv 1 0 0\nv 0 x 0\nf 1 2 3\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { line: Some(3), .. }), "{err}");
        let err = read("v 0 0 0\nv 1 0 0\nv 0 1 0 0\nf 1 2 3").unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { line: Some(3), .. }), "{err}");
        let err = read(&format!("{SQUARE}f 1 2 3\nf 1 2 a\n")).unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { line: Some(6), .. }), "{err}");
        let err = read(&format!("{SQUARE}f 1 2 3 4\nf 1 2 5\n")).unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { triangle: 2, index: 4, vertex_count: 4 }));
        let err = read(&format!("{SQUARE}f 0 1 2\n")).unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { triangle: 0, index: -1, .. }));
        let err = read(&format!("v 0 0 0\nf -2 -1 1\n{SQUARE}")).unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { index: -1, vertex_count: 5, .. }));
        let err = read("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::NonFiniteVertex { index: 1 }));
    }
}
