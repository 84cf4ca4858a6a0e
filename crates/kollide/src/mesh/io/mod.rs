//! Mesh file loading: Wavefront OBJ, STL (ascii and binary), PLY (ascii and binary) and OFF.
//!
//! Every loader returns raw [`MeshData`] (positions and triangle indices, nothing else: normals,
//! texture coordinates, colors and materials are ignored) that has passed [`validate`]: at least
//! one triangle, every vertex finite, every index in range. Polygons with more than three vertices
//! are split into a fan around their first vertex (`[v0, v(i), v(i+1)]`), which is exact for
//! convex polygons and keeps the winding; faces with fewer than three vertices (points, lines)
//! contribute no triangle. Degenerate triangles (a repeated index or zero area) are kept.
//!
//! Loaders never panic and never reserve memory from a count read from the file without capping
//! it, so truncated or hostile files end in a [`MeshLoadError`] that says what was wrong.
//!
//! ```no_run
//! use kollide::mesh::io;
//! let mesh = io::load(std::path::Path::new("assets/cgal_bunny00.off"))?;
//! println!("{} triangles", mesh.triangles.len());
//! # Ok::<(), io::MeshLoadError>(())
//! ```

mod obj;
mod off;
mod ply;
mod stl;

pub use obj::{load_obj, read_obj};
pub use off::{load_off, read_off};
pub use ply::{load_ply, read_ply};
pub use stl::{load_stl, read_stl};

use crate::math::Vec3;
use std::fmt;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Raw triangle mesh data as read from a file: not validated unless it came from a loader.
///
/// `triangles` index into `vertices`; the winding is the file's (counter-clockwise seen from the
/// side the file's author considered outside, for well-made closed meshes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    /// Vertex positions.
    pub vertices: Vec<Vec3>,
    /// Triangles as three indices into `vertices`.
    pub triangles: Vec<[u32; 3]>,
}

/// The mesh file formats [`load`] understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshFormat {
    /// Wavefront OBJ (`.obj`).
    Obj,
    /// STL, ascii or binary (`.stl`).
    Stl,
    /// Stanford PLY, ascii or binary of either endianness (`.ply`).
    Ply,
    /// Object File Format (`.off`): OFF, COFF, NOFF, CNOFF, STOFF headers.
    Off,
}

impl MeshFormat {
    /// The format named by `path`'s extension (case-insensitive), or `None` for any other
    /// extension or none.
    pub fn from_path(path: &Path) -> Option<MeshFormat> {
        let ext = path.extension()?.to_str()?;
        [
            ("obj", MeshFormat::Obj),
            ("stl", MeshFormat::Stl),
            ("ply", MeshFormat::Ply),
            ("off", MeshFormat::Off),
        ]
        .into_iter()
        .find(|(name, _)| ext.eq_ignore_ascii_case(name))
        .map(|(_, format)| format)
    }
}

impl fmt::Display for MeshFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MeshFormat::Obj => "OBJ",
            MeshFormat::Stl => "STL",
            MeshFormat::Ply => "PLY",
            MeshFormat::Off => "OFF",
        })
    }
}

/// Why a mesh could not be loaded or failed [`validate`].
#[derive(Debug)]
#[non_exhaustive]
pub enum MeshLoadError {
    /// Reading failed. `path` is `None` when the source was a reader given by the caller.
    Io {
        /// The file being read, if any.
        path: Option<PathBuf>,
        /// The underlying error.
        source: std::io::Error,
    },
    /// [`load`] does not know the file extension (given without the dot; empty if none).
    UnsupportedFormat {
        /// The extension as written in the path.
        extension: String,
    },
    /// The contents are not a valid file of `format`. `line` is 1-based where the parser knows it.
    Parse {
        /// The format being parsed.
        format: MeshFormat,
        /// The 1-based line of the problem, when known.
        line: Option<usize>,
        /// What was wrong.
        message: String,
    },
    /// The file holds no triangle (empty, a point cloud, only lines or points).
    NoTriangles,
    /// Triangle `triangle` refers to vertex `index`, which is negative or `>= vertex_count`.
    IndexOutOfRange {
        /// Position of the triangle in the triangle list (after fan triangulation).
        triangle: usize,
        /// The offending index as written (may be negative in formats that allow it).
        index: i64,
        /// Number of vertices in the mesh.
        vertex_count: usize,
    },
    /// Vertex `index` has a NaN or infinite coordinate.
    NonFiniteVertex {
        /// Position of the vertex in the vertex list.
        index: usize,
    },
}

impl MeshLoadError {
    pub(crate) fn parse(format: MeshFormat, line: Option<usize>, message: impl Into<String>) -> Self {
        MeshLoadError::Parse { format, line, message: message.into() }
    }

    pub(crate) fn io(source: std::io::Error) -> Self {
        MeshLoadError::Io { path: None, source }
    }

    /// Attaches `path` to an I/O error that has none; other errors are returned unchanged.
    fn with_path(self, path: &Path) -> Self {
        match self {
            MeshLoadError::Io { path: None, source } => {
                MeshLoadError::Io { path: Some(path.to_path_buf()), source }
            }
            other => other,
        }
    }
}

impl fmt::Display for MeshLoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshLoadError::Io { path: Some(path), source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            MeshLoadError::Io { path: None, source } => write!(f, "read error: {source}"),
            MeshLoadError::UnsupportedFormat { extension } if extension.is_empty() => f.write_str(
                "unsupported mesh format: the file name has no extension (expected obj, stl, ply or off)",
            ),
            MeshLoadError::UnsupportedFormat { extension } => {
                write!(f, "unsupported mesh format '.{extension}' (expected obj, stl, ply or off)")
            }
            MeshLoadError::Parse { format, line: Some(line), message } => {
                write!(f, "invalid {format} file, line {line}: {message}")
            }
            MeshLoadError::Parse { format, line: None, message } => {
                write!(f, "invalid {format} file: {message}")
            }
            MeshLoadError::NoTriangles => f.write_str("the mesh has no triangles"),
            MeshLoadError::IndexOutOfRange { triangle, index, vertex_count } => write!(
                f,
                "triangle {triangle} refers to vertex {index}, but the mesh has {vertex_count} vertices"
            ),
            MeshLoadError::NonFiniteVertex { index } => {
                write!(f, "vertex {index} has a NaN or infinite coordinate")
            }
        }
    }
}

impl std::error::Error for MeshLoadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MeshLoadError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Checks raw mesh data: at least one triangle, every vertex finite, every index below
/// `vertices.len()`. Reports the first problem found, in that order of checks (vertices in
/// order, then triangles in order). Degenerate triangles are accepted.
///
/// Every vertex is checked, including vertices no triangle uses.
pub fn validate(data: &MeshData) -> Result<(), MeshLoadError> {
    if data.triangles.is_empty() {
        return Err(MeshLoadError::NoTriangles);
    }
    if let Some(index) = data.vertices.iter().position(|v| !v.is_finite()) {
        return Err(MeshLoadError::NonFiniteVertex { index });
    }
    let vertex_count = data.vertices.len();
    for (triangle, tri) in data.triangles.iter().enumerate() {
        if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(MeshLoadError::IndexOutOfRange { triangle, index: i64::from(index), vertex_count });
        }
    }
    Ok(())
}

/// Loads the mesh at `path`, choosing the parser by the extension (`obj`, `stl`, `ply`, `off`,
/// case-insensitive), and validates it (see [`validate`]).
///
/// Any other extension gives [`MeshLoadError::UnsupportedFormat`] without opening the file.
pub fn load(path: &Path) -> Result<MeshData, MeshLoadError> {
    match MeshFormat::from_path(path) {
        Some(MeshFormat::Obj) => load_obj(path),
        Some(MeshFormat::Stl) => load_stl(path),
        Some(MeshFormat::Ply) => load_ply(path),
        Some(MeshFormat::Off) => load_off(path),
        None => Err(MeshLoadError::UnsupportedFormat {
            extension: path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default(),
        }),
    }
}

/// Opens `path`, runs `read` on a buffered reader of it and attaches the path to I/O errors.
fn load_with<T>(
    path: &Path,
    read: impl FnOnce(BufReader<std::fs::File>) -> Result<T, MeshLoadError>,
) -> Result<T, MeshLoadError> {
    let file =
        std::fs::File::open(path).map_err(|source| MeshLoadError::Io { path: Some(path.into()), source })?;
    read(BufReader::new(file)).map_err(|e| e.with_path(path))
}

/// Reads all of `reader` into memory.
fn read_all(mut reader: impl Read) -> Result<Vec<u8>, MeshLoadError> {
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(MeshLoadError::io)?;
    Ok(bytes)
}

/// The largest number of elements a loader reserves up front from a count given in a file;
/// beyond it vectors grow as elements are actually read, so a lying header cannot make the
/// loader allocate more than the data it really contains.
const MAX_RESERVE: usize = 1 << 16;

/// Appends the fan triangulation `[p0, p(i), p(i+1)]` of the polygon `polygon` (fewer than three
/// vertices give nothing).
fn push_fan(triangles: &mut Vec<[u32; 3]>, polygon: &[u32]) {
    if let [first, rest @ ..] = polygon {
        triangles.extend(rest.windows(2).map(|w| [*first, w[0], w[1]]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_from_extension_is_case_insensitive() {
        assert_eq!(MeshFormat::from_path(Path::new("a/b.OBJ")), Some(MeshFormat::Obj));
        assert_eq!(MeshFormat::from_path(Path::new("b.Stl")), Some(MeshFormat::Stl));
        assert_eq!(MeshFormat::from_path(Path::new("b.ply")), Some(MeshFormat::Ply));
        assert_eq!(MeshFormat::from_path(Path::new("b.oFf")), Some(MeshFormat::Off));
        assert_eq!(MeshFormat::from_path(Path::new("b.3ds")), None);
        assert_eq!(MeshFormat::from_path(Path::new("formatDetection")), None);
    }

    #[test]
    fn load_rejects_unknown_extensions_without_opening() {
        let err = load(Path::new("/nonexistent/mesh.3ds")).unwrap_err();
        assert!(matches!(&err, MeshLoadError::UnsupportedFormat { extension } if extension == "3ds"));
        let err = load(Path::new("/nonexistent/mesh")).unwrap_err();
        assert!(matches!(&err, MeshLoadError::UnsupportedFormat { extension } if extension.is_empty()));
        assert!(err.to_string().contains("no extension"));
    }

    #[test]
    fn missing_file_is_an_io_error_with_path() {
        let err = load(Path::new("/nonexistent/mesh.obj")).unwrap_err();
        match &err {
            MeshLoadError::Io { path: Some(p), source } => {
                assert_eq!(p, Path::new("/nonexistent/mesh.obj"));
                assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(std::error::Error::source(&err).is_some());
    }

    #[test]
    fn validate_reports_each_problem() {
        let tri = MeshData { vertices: vec![Vec3::ZERO, Vec3::X, Vec3::Y], triangles: vec![[0, 1, 2]] };
        assert!(validate(&tri).is_ok());

        let empty = MeshData { vertices: tri.vertices.clone(), triangles: vec![] };
        assert!(matches!(validate(&empty), Err(MeshLoadError::NoTriangles)));

        let mut nan = tri.clone();
        nan.vertices.push(Vec3::new(0.0, f32::NAN, 0.0));
        assert!(matches!(validate(&nan), Err(MeshLoadError::NonFiniteVertex { index: 3 })));
        let mut inf = tri.clone();
        inf.vertices[1].z = f32::NEG_INFINITY;
        assert!(matches!(validate(&inf), Err(MeshLoadError::NonFiniteVertex { index: 1 })));

        let mut out = tri.clone();
        out.triangles.push([0, 1, u32::MAX]);
        let err = validate(&out).unwrap_err();
        assert!(matches!(
            err,
            MeshLoadError::IndexOutOfRange { triangle: 1, index: 4_294_967_295, vertex_count: 3 }
        ));
        assert_eq!(err.to_string(), "triangle 1 refers to vertex 4294967295, but the mesh has 3 vertices");

        // Degenerate triangles are data, not errors.
        let degenerate = MeshData { vertices: tri.vertices.clone(), triangles: vec![[0, 0, 1]] };
        assert!(validate(&degenerate).is_ok());
    }

    #[test]
    fn fan_triangulation() {
        let mut t = Vec::new();
        push_fan(&mut t, &[]);
        push_fan(&mut t, &[1]);
        push_fan(&mut t, &[1, 2]);
        assert!(t.is_empty());
        push_fan(&mut t, &[4, 5, 6]);
        push_fan(&mut t, &[0, 1, 2, 3, 7]);
        assert_eq!(t, vec![[4, 5, 6], [0, 1, 2], [0, 2, 3], [0, 3, 7]]);
    }

    #[test]
    fn parse_error_display_names_format_and_line() {
        let e = MeshLoadError::parse(MeshFormat::Off, Some(7), "bad vertex");
        assert_eq!(e.to_string(), "invalid OFF file, line 7: bad vertex");
        let e = MeshLoadError::parse(MeshFormat::Stl, None, "truncated");
        assert_eq!(e.to_string(), "invalid STL file: truncated");
    }
}
