//! Stanford PLY reader (ascii, binary little- and big-endian) on top of the `ply-rs-bw` crate.
//!
//! Positions come from the `x`, `y`, `z` properties of the `vertex` element (any numeric type;
//! doubles are rounded to `f32`). Faces come from the `vertex_indices` (or `vertex_index`)
//! integer list of the `face` element and are fan-triangulated. Other elements and properties
//! (normals, colors, edges, materials) are read past and ignored.

use super::{MAX_RESERVE, MeshData, MeshFormat, MeshLoadError, load_with, push_fan, validate};
use crate::math::Vec3;
use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{ElementDef, Header, Property, PropertyAccess, PropertyAccessResult, PropertyType};
use std::io::BufRead;
use std::path::Path;

/// Loads a PLY file (see [`read_ply`]) and validates it.
pub fn load_ply(path: &Path) -> Result<MeshData, MeshLoadError> {
    load_with(path, read_ply)
}

/// Reads an ascii or binary PLY mesh from `reader` and validates it.
///
/// Errors: [`MeshLoadError::Parse`] (with the line where `ply-rs-bw` knows it) for a malformed
/// header or payload, a file shorter than its element counts, a `vertex` element without
/// `x`/`y`/`z` or a `face` element without an index list; [`MeshLoadError::NoTriangles`] for a
/// point cloud (no `face` element or no face with three or more vertices);
/// [`MeshLoadError::IndexOutOfRange`] for a negative or too large index (`triangle` is the index
/// the face's first triangle would get); [`MeshLoadError::NonFiniteVertex`] for NaN or
/// infinite coordinates.
pub fn read_ply(reader: impl BufRead) -> Result<MeshData, MeshLoadError> {
    let mut reader = Reader::new(reader);
    let header = Parser::<Ignored>::new().read_header(&mut reader).map_err(ply_err)?;

    let mut vertices: Option<Vec<Vec3>> = None;
    let mut faces: Option<Vec<PlyFace>> = None;
    for element in header.elements.values() {
        match element.name.as_str() {
            "vertex" if vertices.is_none() => {
                for axis in ["x", "y", "z"] {
                    if !element.properties.contains_key(axis) {
                        return Err(MeshLoadError::parse(
                            MeshFormat::Ply,
                            None,
                            format!("the vertex element has no '{axis}' property"),
                        ));
                    }
                }
                let read = read_element::<PlyVertex, _>(&mut reader, element, &header)?;
                vertices = Some(read.iter().map(|v| Vec3::from_array(v.xyz)).collect());
            }
            "face" if faces.is_none() => {
                let list = INDEX_LISTS.iter().find_map(|name| element.properties.get(*name));
                if !list.is_some_and(|p| matches!(p.data_type, PropertyType::List(..))) {
                    return Err(MeshLoadError::parse(
                        MeshFormat::Ply,
                        None,
                        "the face element has no 'vertex_indices' or 'vertex_index' list",
                    ));
                }
                faces = Some(read_element::<PlyFace, _>(&mut reader, element, &header)?);
            }
            _ => {
                read_element::<Ignored, _>(&mut reader, element, &header)?;
            }
        }
    }

    let faces = faces.unwrap_or_default();
    let vertices = vertices.unwrap_or_default();
    let vertex_count = vertices.len();
    let mut triangles = Vec::with_capacity(faces.len().min(MAX_RESERVE));
    for face in &faces {
        if let Some(index) = face.bad_index {
            return Err(MeshLoadError::IndexOutOfRange { triangle: triangles.len(), index, vertex_count });
        }
        if let Some(&index) = face.indices.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(MeshLoadError::IndexOutOfRange {
                triangle: triangles.len(),
                index: i64::from(index),
                vertex_count,
            });
        }
        push_fan(&mut triangles, &face.indices);
    }
    let data = MeshData { vertices, triangles };
    validate(&data)?;
    Ok(data)
}

/// Property names that hold a face's vertex indices, in order of preference.
const INDEX_LISTS: [&str; 2] = ["vertex_indices", "vertex_index"];

fn read_element<E: PropertyAccess, R: BufRead>(
    reader: &mut Reader<R>,
    element: &ElementDef,
    header: &Header,
) -> Result<Vec<E>, MeshLoadError> {
    Parser::<E>::new().read_payload_for_element(reader, element, header).map_err(ply_err)
}

fn ply_err(e: ParseError) -> MeshLoadError {
    // ply-rs-bw formats multi-line messages ("...\n\tString: ...\n\tError: ..."); keep one line.
    let message = e.to_string();
    let message = match e.line() {
        // The line is reported separately; drop the "Line N: " prefix of the Display form.
        Some(line) => message.strip_prefix(&format!("Line {line}: ")).unwrap_or(&message).to_owned(),
        None => message,
    };
    MeshLoadError::parse(MeshFormat::Ply, e.line(), message.replace("\n\t", "; ").replace('\n', " "))
}

/// Element storage that reads past every property.
struct Ignored;

impl PropertyAccess for Ignored {
    fn new() -> Self {
        Ignored
    }
}

/// A `vertex` element: only the position is kept.
struct PlyVertex {
    xyz: [f32; 3],
}

impl PropertyAccess for PlyVertex {
    fn new() -> Self {
        PlyVertex { xyz: [0.0; 3] }
    }

    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        let axis = match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return PropertyAccessResult::Ignored,
        };
        match property.to_f32_lossy() {
            Some(value) => {
                self.xyz[axis] = value;
                PropertyAccessResult::Set
            }
            None => PropertyAccessResult::UnsupportedType,
        }
    }
}

/// A `face` element: its vertex indices, or the first index that cannot be one (negative).
struct PlyFace {
    indices: Vec<u32>,
    bad_index: Option<i64>,
}

impl PlyFace {
    fn set_signed(&mut self, values: impl Iterator<Item = i64>) {
        self.indices.clear();
        for v in values {
            match u32::try_from(v) {
                Ok(i) => self.indices.push(i),
                Err(_) => {
                    self.bad_index.get_or_insert(v);
                }
            }
        }
    }
}

impl PropertyAccess for PlyFace {
    fn new() -> Self {
        PlyFace { indices: Vec::new(), bad_index: None }
    }

    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        if !INDEX_LISTS.contains(&name) {
            return PropertyAccessResult::Ignored;
        }
        match property {
            Property::ListChar(v) => self.set_signed(v.into_iter().map(i64::from)),
            Property::ListUChar(v) => self.indices = v.into_iter().map(u32::from).collect(),
            Property::ListShort(v) => self.set_signed(v.into_iter().map(i64::from)),
            Property::ListUShort(v) => self.indices = v.into_iter().map(u32::from).collect(),
            Property::ListInt(v) => self.set_signed(v.into_iter().map(i64::from)),
            Property::ListUInt(v) => self.indices = v,
            _ => return PropertyAccessResult::UnsupportedType,
        }
        PropertyAccessResult::Set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\n\
                          property double z\nproperty uchar red\nelement face 2\n\
                          property list uchar int vertex_indices\nproperty float quality\nend_header\n";

    #[test]
    fn ascii_faces_and_extra_properties() {
        let text = format!("{HEADER}0 0 0 9\n1 0 0 9\n1 1 0.5 9\n0 1 0 9\n4 0 1 2 3 0.5\n3 3 2 1 0.5\n");
        let m = read_ply(text.as_bytes()).unwrap();
        assert_eq!(m.vertices[2], Vec3::new(1.0, 1.0, 0.5));
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3], [3, 2, 1]]);
    }

    #[test]
    fn binary_big_and_little_endian_vertex_index() {
        for (format, big) in [("binary_little_endian", false), ("binary_big_endian", true)] {
            let mut bytes = format!(
                "ply\nformat {format} 1.0\ncomment x\nelement vertex 3\nproperty double x\n\
                 property double y\nproperty double z\nelement face 1\n\
                 property list uchar uint vertex_index\nelement edge 1\nproperty int vertex1\n\
                 property int vertex2\nend_header\n"
            )
            .into_bytes();
            for v in [[0.0f64, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
                for c in v {
                    bytes.extend_from_slice(&if big { c.to_be_bytes() } else { c.to_le_bytes() });
                }
            }
            bytes.push(3);
            for i in [0u32, 1, 2] {
                bytes.extend_from_slice(&if big { i.to_be_bytes() } else { i.to_le_bytes() });
            }
            for i in [0i32, 1] {
                bytes.extend_from_slice(&if big { i.to_be_bytes() } else { i.to_le_bytes() });
            }
            let m = read_ply(&bytes[..]).unwrap();
            assert_eq!(m.triangles, vec![[0, 1, 2]], "{format}");
            assert_eq!(m.vertices[1], Vec3::X, "{format}");
        }
    }

    #[test]
    fn point_cloud_is_no_triangles() {
        let text = "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\n\
                    property float z\nend_header\n0 0 0\n1 1 1\n";
        assert!(matches!(read_ply(text.as_bytes()), Err(MeshLoadError::NoTriangles)));
    }

    #[test]
    fn errors() {
        let parse_line = |text: &str| match read_ply(text.as_bytes()) {
            Err(MeshLoadError::Parse { line, .. }) => line,
            other => panic!("expected a parse error for {text:?}, got {other:?}"),
        };
        parse_line("");
        parse_line("obj\n");
        parse_line("ply\nformat ascii 1.0\nelement vertex 1\n");
        // No z.
        parse_line(
            "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n0 0\n",
        );
        // No index list.
        parse_line(&HEADER.replace("vertex_indices", "colors"));
        // Truncated payload and a bad number.
        let short = format!("{HEADER}0 0 0 9\n1 0 0 9\n");
        assert!(parse_line(&short).is_some());
        let bad = format!("{HEADER}0 0 0 9\n1 0 x 9\n1 1 0 9\n0 1 0 9\n3 0 1 2 0\n3 0 1 2 0\n");
        assert!(parse_line(&bad).is_some());
        // Huge element count with no data: fails at the end of input without reserving it.
        let huge = HEADER.replace("element vertex 4", "element vertex 18446744073709551615");
        parse_line(&huge);

        let out = format!("{HEADER}0 0 0 9\n1 0 0 9\n1 1 0 9\n0 1 0 9\n3 0 1 2 0\n3 0 1 4 0\n");
        let err = read_ply(out.as_bytes()).unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { triangle: 1, index: 4, vertex_count: 4 }));
        let neg = format!("{HEADER}0 0 0 9\n1 0 0 9\n1 1 0 9\n0 1 0 9\n3 0 -1 2 0\n3 0 1 2 0\n");
        let err = read_ply(neg.as_bytes()).unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { triangle: 0, index: -1, .. }));
        // The ascii grammar has no NaN; binary files can hold one.
        let nan = format!("{HEADER}0 0 0 9\n1 0 0 9\n1 nan 0 9\n0 1 0 9\n3 0 1 2 0\n3 0 1 2 0\n");
        assert_eq!(parse_line(&nan), Some(14));
        let mut bytes = b"ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n\
                          property float y\nproperty float z\nelement face 1\n\
                          property list uchar int vertex_indices\nend_header\n"
            .to_vec();
        for c in [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, f32::INFINITY, 0.0] {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
        bytes.push(3);
        for i in [0i32, 1, 2] {
            bytes.extend_from_slice(&i.to_le_bytes());
        }
        let err = read_ply(&bytes[..]).unwrap_err();
        assert!(matches!(err, MeshLoadError::NonFiniteVertex { index: 2 }), "{err}");
        // The same file cut short.
        let err = read_ply(&bytes[..bytes.len() - 3]).unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { .. }), "{err}");
    }
}
