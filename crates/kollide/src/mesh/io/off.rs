//! Object File Format (OFF) reader.
//!
//! Accepted layout (Princeton / Geomview ascii OFF):
//!
//! ```text
//! [ST][C][N]OFF [nv nf [ne]]   header keyword; the counts may follow on the same line
//! nv nf [ne]                   vertex, face and (ignored) edge counts
//! x y z [more columns]         nv vertex lines; normals, colors, texture coordinates ignored
//! n i0 i1 ... i(n-1) [color]   nf face lines; fan-triangulated, trailing color values ignored
//! ```
//!
//! `#` starts a comment that runs to the end of the line; blank lines are skipped. A file whose
//! first line is the counts line (no keyword) is accepted too. Binary OFF, 4D (`4OFF`) and
//! n-dimensional (`nOFF`) variants are rejected with a parse error.

use super::{MAX_RESERVE, MeshData, MeshFormat, MeshLoadError, load_with, push_fan, validate};
use crate::math::Vec3;
use std::io::BufRead;
use std::path::Path;

/// Loads an OFF file (see [`read_off`]) and validates it.
pub fn load_off(path: &Path) -> Result<MeshData, MeshLoadError> {
    load_with(path, read_off)
}

/// Reads an ascii OFF mesh from `reader` and validates it.
///
/// Errors: [`MeshLoadError::Parse`] with the line for a bad header, counts, vertex or face line,
/// or a file that ends before the announced counts; [`MeshLoadError::IndexOutOfRange`] for a
/// face index that is negative or not below the vertex count (`triangle` is the index the
/// face's first triangle would get); [`MeshLoadError::NoTriangles`] when no face has three or
/// more vertices; [`MeshLoadError::NonFiniteVertex`] for NaN or infinite coordinates.
pub fn read_off(reader: impl BufRead) -> Result<MeshData, MeshLoadError> {
    let mut lines = Lines { reader, buf: Vec::new(), line: 0 };

    // Header keyword (optional) and counts.
    let (line, first) =
        lines.next()?.map(|(n, s)| (n, s.to_owned())).ok_or_else(|| parse_err(None, "the file is empty"))?;
    let mut words = first.split_ascii_whitespace();
    let (vertex_count, face_count) = match words.clone().next() {
        Some(word) if word.parse::<u64>().is_err() => {
            check_keyword(word, line)?;
            words.next();
            match words.clone().next() {
                Some(w) if w.eq_ignore_ascii_case("BINARY") => {
                    return Err(parse_err(Some(line), "binary OFF is not supported"));
                }
                Some(_) => parse_counts(words, line)?,
                None => {
                    let (line, text) = lines
                        .next()?
                        .ok_or_else(|| parse_err(None, "the file ends before the counts line"))?;
                    parse_counts(text.split_ascii_whitespace(), line)?
                }
            }
        }
        _ => parse_counts(words, line)?,
    };

    let mut vertices = Vec::with_capacity(vertex_count.min(MAX_RESERVE));
    for read in 0..vertex_count {
        let (line, text) = lines.next()?.ok_or_else(|| {
            parse_err(None, format!("the file ends after {read} of {vertex_count} vertices"))
        })?;
        let mut xyz = [0.0f32; 3];
        let mut words = text.split_ascii_whitespace();
        for c in &mut xyz {
            let word =
                words.next().ok_or_else(|| parse_err(Some(line), "a vertex line needs three coordinates"))?;
            *c = word.parse().map_err(|_| {
                parse_err(Some(line), format!("'{word}' is not a number (vertex coordinate)"))
            })?;
        }
        vertices.push(Vec3::from_array(xyz));
    }

    let mut triangles = Vec::with_capacity(face_count.min(MAX_RESERVE));
    let mut polygon: Vec<u32> = Vec::new();
    for read in 0..face_count {
        let (line, text) = lines
            .next()?
            .ok_or_else(|| parse_err(None, format!("the file ends after {read} of {face_count} faces")))?;
        let mut words = text.split_ascii_whitespace();
        let n: usize = words
            .next()
            .and_then(|w| w.parse().ok())
            .ok_or_else(|| parse_err(Some(line), "a face line must start with its vertex count"))?;
        polygon.clear();
        for k in 0..n {
            let word = words.next().ok_or_else(|| {
                parse_err(Some(line), format!("the face has {n} vertices but lists only {k}"))
            })?;
            let index: i64 =
                word.parse().map_err(|_| parse_err(Some(line), format!("'{word}' is not a vertex index")))?;
            match u32::try_from(index) {
                Ok(i) if (i as usize) < vertex_count => polygon.push(i),
                _ => {
                    return Err(MeshLoadError::IndexOutOfRange {
                        triangle: triangles.len(),
                        index,
                        vertex_count,
                    });
                }
            }
        }
        push_fan(&mut triangles, &polygon);
    }

    let data = MeshData { vertices, triangles };
    validate(&data)?;
    Ok(data)
}

fn parse_err(line: Option<usize>, message: impl Into<String>) -> MeshLoadError {
    MeshLoadError::parse(MeshFormat::Off, line, message)
}

/// Accepts `[ST][C][N]OFF` (case-sensitive, as written by every OFF tool).
fn check_keyword(word: &str, line: usize) -> Result<(), MeshLoadError> {
    let rest = word.strip_prefix("ST").unwrap_or(word);
    let rest = rest.strip_prefix('C').unwrap_or(rest);
    let rest = rest.strip_prefix('N').unwrap_or(rest);
    match rest {
        "OFF" => Ok(()),
        "4OFF" | "nOFF" | "4nOFF" => {
            Err(parse_err(Some(line), format!("'{word}': only 3D OFF files are supported")))
        }
        _ => Err(parse_err(
            Some(line),
            format!("expected an OFF header such as 'OFF' or 'COFF', found '{word}'"),
        )),
    }
}

/// Parses `nv nf [ne]`. The vertex count must fit `u32` indices.
fn parse_counts<'a>(
    mut words: impl Iterator<Item = &'a str>,
    line: usize,
) -> Result<(usize, usize), MeshLoadError> {
    let mut count = |what: &str| -> Result<u64, MeshLoadError> {
        let word = words.next().ok_or_else(|| parse_err(Some(line), format!("missing {what} count")))?;
        word.parse::<u64>()
            .map_err(|_| parse_err(Some(line), format!("'{word}' is not a valid {what} count")))
    };
    let vertices = count("vertex")?;
    let faces = count("face")?;
    if vertices > 1 << 32 {
        return Err(parse_err(
            Some(line),
            format!("vertex count {vertices} exceeds 2^32, the limit of u32 vertex indices"),
        ));
    }
    let faces = usize::try_from(faces)
        .map_err(|_| parse_err(Some(line), format!("face count {faces} does not fit in memory")))?;
    // `vertices <= 2^32` fits a 64-bit usize; on 32-bit targets saturate (reading fails first).
    Ok((usize::try_from(vertices).unwrap_or(usize::MAX), faces))
}

/// Line reader that strips `#` comments and skips blank lines, counting 1-based line numbers.
struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    line: usize,
}

impl<R: BufRead> Lines<R> {
    /// The next line with content (comment removed) and its 1-based number, or `None` at the
    /// end of the input. Only the part before `#` must be valid UTF-8.
    fn next(&mut self) -> Result<Option<(usize, &str)>, MeshLoadError> {
        loop {
            self.buf.clear();
            if self.reader.read_until(b'\n', &mut self.buf).map_err(MeshLoadError::io)? == 0 {
                return Ok(None);
            }
            self.line += 1;
            let end = self.buf.iter().position(|&b| b == b'#').unwrap_or(self.buf.len());
            if !self.buf[..end].iter().all(u8::is_ascii_whitespace) {
                break;
            }
        }
        let end = self.buf.iter().position(|&b| b == b'#').unwrap_or(self.buf.len());
        match std::str::from_utf8(&self.buf[..end]) {
            Ok(text) => Ok(Some((self.line, text))),
            Err(_) => Err(parse_err(Some(self.line), "the line is not valid text")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<MeshData, MeshLoadError> {
        read_off(text.as_bytes())
    }

    const QUAD: &str = "OFF\n4 1 0\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n";

    #[test]
    fn reads_and_fan_triangulates() {
        let m = read(QUAD).unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.vertices[2], Vec3::new(1.0, 1.0, 0.0));
        assert_eq!(m.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn header_variants_comments_and_extra_columns() {
        let text = "# leading comment\n\nCOFF 3 1 3 # counts on the header line\n\
                    0 0 0 255 0 0 255\n1 0 0 0 255 0 255 # colored\n0 1 0 0 0 255 255\n\
                    3 0 1 2 0.5 0.5 0.5\n";
        let m = read(text).unwrap();
        assert_eq!(m.triangles, vec![[0, 1, 2]]);
        for kw in ["OFF", "NOFF", "CNOFF", "STOFF", "STCNOFF"] {
            let text = format!("{kw}\r\n3 1 0\r\n0 0 0 0 0 1\r\n1 0 0 0 0 1\r\n0 1 0 0 0 1\r\n3 0 1 2\r\n");
            assert_eq!(read(&text).unwrap().triangles.len(), 1, "{kw}");
        }
        // No keyword: the first line is the counts line.
        assert_eq!(read("3 1\n0 0 0\n1 0 0\n0 1 0\n3 2 1 0").unwrap().triangles, vec![[2, 1, 0]]);
    }

    #[test]
    fn faces_with_fewer_than_three_vertices_give_no_triangle() {
        let text = "OFF\n3 3 0\n0 0 0\n1 0 0\n0 1 0\n1 0\n2 0 1\n3 0 1 2\n";
        assert_eq!(read(text).unwrap().triangles, vec![[0, 1, 2]]);
        let only_lines = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n";
        assert!(matches!(read(only_lines), Err(MeshLoadError::NoTriangles)));
        assert!(matches!(read("OFF\n0 0 0\n"), Err(MeshLoadError::NoTriangles)));
    }

    #[test]
    fn malformed_files_give_parse_errors_with_lines() {
        let line_of = |text: &str| match read(text) {
            Err(MeshLoadError::Parse { line, .. }) => line,
            other => panic!("expected a parse error for {text:?}, got {other:?}"),
        };
        assert_eq!(line_of(""), None);
        assert_eq!(line_of("# only a comment\n"), None);
        assert_eq!(line_of("PLY\n"), Some(1));
        assert_eq!(line_of("4OFF\n"), Some(1));
        assert_eq!(line_of("OFF BINARY\n"), Some(1));
        assert_eq!(line_of("OFF\n"), None);
        assert_eq!(line_of("OFF\nthree 1 0\n"), Some(2));
        assert_eq!(line_of("OFF\n3\n"), Some(2));
        assert_eq!(line_of("OFF\n-3 1 0\n"), Some(2));
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0\n"), Some(4));
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0 x\n"), Some(4));
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0 0\n"), None);
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4 0 1 2\n"), Some(6));
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 z\n"), Some(6));
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\nx 0 1 2\n"), Some(6));
        assert_eq!(line_of("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n"), None);
    }

    #[test]
    fn non_utf8_bytes_are_fine_in_comments_only() {
        let bytes = b"OFF # auteur: Ren\xe9\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n";
        assert_eq!(read_off(&bytes[..]).unwrap().triangles.len(), 1);
        let bytes = b"OFF\n3 1 0\n0 0 0\n1 \xff 0\n0 1 0\n3 0 1 2\n";
        assert!(matches!(read_off(&bytes[..]), Err(MeshLoadError::Parse { line: Some(4), .. })));
    }

    #[test]
    fn huge_counts_fail_cleanly_without_allocating() {
        // assimp's invalid/OutOfMemory.off: a vertex count beyond any u32 index.
        let err = read("OFF\n353535235358 6 0\n0 0 0\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { line: Some(2), .. }), "{err}");
        // Counts that fit but are not backed by data: the reader stops at the end of the file.
        let err = read("OFF\n4000000000 4000000000 0\n0 0 0\n").unwrap_err();
        assert!(err.to_string().contains("ends after 1 of 4000000000 vertices"), "{err}");
        let err = read("OFF\n3 18446744073709551615 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { .. }), "{err}");
        // A face claiming billions of vertices.
        let err = read("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n4000000000 0 1 2\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::Parse { line: Some(6), .. }), "{err}");
    }

    #[test]
    fn bad_indices_and_coordinates() {
        let err = read("OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 3\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { triangle: 1, index: 3, vertex_count: 3 }));
        let err = read("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::IndexOutOfRange { triangle: 0, index: -1, .. }));
        let err = read("OFF\n3 1 0\n0 0 0\n1 0 0\nnan 1 0\n3 0 1 2\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::NonFiniteVertex { index: 2 }));
        let err = read("OFF\n3 1 0\n0 0 0\n1e39 0 0\n0 1 0\n3 0 1 2\n").unwrap_err();
        assert!(matches!(err, MeshLoadError::NonFiniteVertex { index: 1 }));
    }
}
