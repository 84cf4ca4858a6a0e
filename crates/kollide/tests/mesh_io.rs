//! Mesh file loading on the vendored files (assets/), hand-made bad inputs, round trips of random
//! meshes through every format, and random corruptions that must end in an error, never a panic.

use kollide::math::Vec3;
use kollide::mesh::io::{self, MeshData, MeshLoadError};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn assets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
}

/// What loading a file is expected to give.
#[derive(Clone, Copy, Debug)]
enum Expect {
    Triangles(usize),
    NoTriangles,
    Unsupported,
    Parse,
    IndexOutOfRange,
}

/// Every file of assets/parser_cases and its expected outcome. Triangle counts after fan
/// triangulation; the same model in several formats agrees (Wuson 3732, spider 1368, cube 12).
const PARSER_CASES: &[(&str, Expect)] = &[
    ("OBJ/WusonOBJ.obj", Expect::Triangles(3732)),
    ("OBJ/box.obj", Expect::Triangles(12)),
    ("OBJ/box_UTF16BE.obj", Expect::Triangles(12)),
    // Five quads and one 472-corner polygon: 10 + 470 + ... fan triangles.
    ("OBJ/box_longline.obj", Expect::Triangles(944)),
    ("OBJ/box_mat_with_spaces.obj", Expect::Triangles(12)),
    ("OBJ/box_spaces.mtl", Expect::Unsupported),
    ("OBJ/box_without_lineending.obj", Expect::Triangles(12)),
    ("OBJ/concave_polygon.mtl", Expect::Unsupported),
    ("OBJ/concave_polygon.obj", Expect::Triangles(64)),
    ("OBJ/cube_mtllib_after_g.mtl", Expect::Unsupported),
    ("OBJ/cube_mtllib_after_g.obj", Expect::Triangles(12)),
    ("OBJ/cube_usemtl.mtl", Expect::Unsupported),
    ("OBJ/cube_usemtl.obj", Expect::Triangles(12)),
    ("OBJ/cube_with_vertexcolors.obj", Expect::Triangles(12)),
    ("OBJ/cube_with_vertexcolors_uni.obj", Expect::Triangles(12)),
    ("OBJ/empty_mat.mtl", Expect::Unsupported),
    ("OBJ/empty_mat.obj", Expect::Triangles(256)),
    ("OBJ/multiple_spaces.obj", Expect::Triangles(1)),
    // "3.1+e2" is not a number.
    ("OBJ/number_formats.obj", Expect::Parse),
    ("OBJ/point_cloud.obj", Expect::NoTriangles),
    ("OBJ/regr01.mtl", Expect::Unsupported),
    ("OBJ/regr01.obj", Expect::Triangles(2710)),
    ("OBJ/regr_3429812.mtl", Expect::Unsupported),
    ("OBJ/regr_3429812.obj", Expect::Triangles(4)),
    ("OBJ/space_in_material_name.mtl", Expect::Unsupported),
    ("OBJ/space_in_material_name.obj", Expect::Triangles(64)),
    ("OBJ/spider.mtl", Expect::Unsupported),
    ("OBJ/spider.obj", Expect::Triangles(1368)),
    ("OBJ/testline.obj", Expect::NoTriangles),
    ("OBJ/testmixed.obj", Expect::Triangles(12)),
    ("OBJ/testpoints.obj", Expect::NoTriangles),
    ("OFF/Cube.off", Expect::Triangles(12)),
    ("OFF/Wuson.off", Expect::Triangles(3732)),
    ("OFF/formatDetection", Expect::Unsupported),
    // Faces "0", "2 20" (index 20 of 3 vertices), "4" (no indices).
    ("OFF/invalid.off", Expect::IndexOutOfRange),
    // A header line without the "comment" keyword.
    ("PLY/Wuson.ply", Expect::Parse),
    ("PLY/cube.ply", Expect::Triangles(12)),
    ("PLY/cube_binary.ply", Expect::Triangles(12)),
    ("PLY/cube_uv.ply", Expect::Triangles(12)),
    ("PLY/float-color.ply", Expect::Triangles(1)),
    // The header declares a per-vertex list the data lines lack.
    ("PLY/issue623.ply", Expect::Parse),
    ("PLY/points.ply", Expect::NoTriangles),
    ("STL/3DSMaxExport.STL", Expect::Triangles(2000)),
    ("STL/Spider_ascii.stl", Expect::Triangles(1368)),
    ("STL/Spider_binary.stl", Expect::Triangles(1368)),
    ("STL/Wuson.stl", Expect::Triangles(3732)),
    ("STL/formatDetection", Expect::Unsupported),
    ("STL/sphereWithHole.stl", Expect::Triangles(285)),
    ("STL/triangle.stl", Expect::Triangles(1)),
    ("STL/triangle_with_empty_solid.stl", Expect::Triangles(1)),
    ("STL/triangle_with_two_solids.stl", Expect::Triangles(2)),
    ("invalid/OutOfMemory.off", Expect::Parse),
    ("invalid/empty.3ds", Expect::Unsupported),
    ("invalid/empty.ase", Expect::Unsupported),
    ("invalid/empty.lwo", Expect::Unsupported),
    ("invalid/empty.md5mesh", Expect::Unsupported),
    ("invalid/empty.obj", Expect::NoTriangles),
    ("invalid/empty.off", Expect::Parse),
    ("invalid/empty.ply", Expect::Parse),
    ("invalid/empty.raw", Expect::Unsupported),
    ("invalid/empty.smd", Expect::Unsupported),
    ("invalid/empty.x", Expect::Unsupported),
    ("invalid/emptyIrrMesh.xml", Expect::Unsupported),
    // Indices 12 and 0 with 8 vertices.
    ("invalid/malformed.obj", Expect::IndexOutOfRange),
    // A face line "f" without corners gives no triangle; five quads remain.
    ("invalid/malformed2.obj", Expect::Triangles(10)),
    ("invalid/readme.txt", Expect::Unsupported),
];

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { out.extend(files_under(&path)) } else { out.push(path) }
    }
    out.sort();
    out
}

/// Reads the file again through the format's `read_*` function on its bytes.
fn read_bytes(path: &Path, bytes: &[u8]) -> Result<MeshData, MeshLoadError> {
    match io::MeshFormat::from_path(path) {
        Some(io::MeshFormat::Obj) => io::read_obj(bytes),
        Some(io::MeshFormat::Stl) => io::read_stl(bytes),
        Some(io::MeshFormat::Ply) => io::read_ply(bytes),
        Some(io::MeshFormat::Off) => io::read_off(bytes),
        None => io::load(path),
    }
}

#[test]
fn every_parser_case_loads_or_gives_a_clear_error() {
    let root = assets().join("parser_cases");
    let files = files_under(&root);
    let names: Vec<String> =
        files.iter().map(|f| f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/")).collect();
    for (name, _) in PARSER_CASES {
        assert!(names.iter().any(|n| n == name), "{name} is missing from assets/parser_cases");
    }
    for (path, name) in files.iter().zip(&names) {
        let expect = PARSER_CASES
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, e)| *e)
            .unwrap_or_else(|| panic!("{name}: no expectation listed"));
        // A panic inside the loader would fail this test; every outcome is a Result.
        let result = io::load(path);
        match &result {
            Ok(m) => println!("{name}: {} vertices, {} triangles", m.vertices.len(), m.triangles.len()),
            Err(e) => println!("{name}: error: {e}"),
        }
        match (expect, &result) {
            (Expect::Triangles(n), Ok(m)) => {
                assert_eq!(m.triangles.len(), n, "{name}");
                io::validate(m).unwrap();
            }
            (Expect::NoTriangles, Err(MeshLoadError::NoTriangles))
            | (Expect::Unsupported, Err(MeshLoadError::UnsupportedFormat { .. }))
            | (Expect::Parse, Err(MeshLoadError::Parse { .. }))
            | (Expect::IndexOutOfRange, Err(MeshLoadError::IndexOutOfRange { .. })) => {}
            (expect, got) => panic!("{name}: expected {expect:?}, got {got:?}"),
        }
        if let Err(e) = &result {
            assert!(e.to_string().len() > 10, "{name}: terse error '{e}'");
        }
        // The reader API on the same bytes agrees with the path API.
        if io::MeshFormat::from_path(path).is_some() {
            let again = read_bytes(path, &std::fs::read(path).unwrap());
            assert_eq!(format!("{again:?}"), format!("{result:?}"), "{name}");
        }
    }
}

/// The vendored real meshes with their triangle counts from assets/PROVENANCE.md.
const REAL_MESHES: &[(&str, usize)] = &[
    ("cgal_bunny00.off", 75_408),
    ("cgal_armadillo.off", 52_000),
    ("cgal_elephant.off", 5_558),
    ("cgal_fandisk.off", 12_946),
    ("cgal_knot2.off", 11_520),
    ("bunny_npm_3674.obj", 3_674),
    ("teapot_npm_992.obj", 992),
    ("ant_pyvista_912.ply", 912),
    ("sphere_pyvista_840.ply", 840),
    ("spider_assimp_1368.obj", 1_368),
    ("spider_assimp_1368.stl", 1_368),
];

#[test]
fn real_meshes_load_with_their_provenance_counts() {
    for &(name, triangles) in REAL_MESHES {
        let m = io::load(&assets().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.triangles.len(), triangles, "{name}");
        io::validate(&m).unwrap();
    }
}

#[test]
fn spider_ascii_and_binary_stl_agree() {
    let ascii = io::load(&assets().join("parser_cases/STL/Spider_ascii.stl")).unwrap();
    let binary = io::load(&assets().join("parser_cases/STL/Spider_binary.stl")).unwrap();
    let vendored = io::load(&assets().join("spider_assimp_1368.stl")).unwrap();
    let obj = io::load(&assets().join("spider_assimp_1368.obj")).unwrap();
    assert_eq!(ascii.triangles.len(), binary.triangles.len());
    assert_eq!(ascii.vertices.len(), binary.vertices.len());
    assert_eq!(binary, vendored);
    assert_eq!(obj.triangles.len(), binary.triangles.len());
    // Same corners up to the ascii file's decimal rounding.
    for (ta, tb) in ascii.triangles.iter().zip(&binary.triangles) {
        for (&ia, &ib) in ta.iter().zip(tb) {
            let (a, b) = (ascii.vertices[ia as usize], binary.vertices[ib as usize]);
            assert!((a - b).abs().max_element() <= 1e-5 * (1.0 + b.abs().max_element()), "{a} vs {b}");
        }
    }
}

#[test]
fn dragon_when_fetched() {
    let path = assets().join("fetched/dragon_vrip.ply");
    if !path.exists() {
        println!("skipped: run scripts/fetch-meshes.sh to fetch {}", path.display());
        return;
    }
    let m = io::load(&path).unwrap();
    assert_eq!(m.triangles.len(), 871_414);
    assert_eq!(m.vertices.len(), 437_645);
}

/// A scratch directory for files written by a test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("kollide-mesh-io-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn bad_files_give_the_right_error() {
    let dir = TempDir::new("bad");

    // Truncated binary STL: the count promises 1368 facets, the file stops in the 101st.
    let spider = std::fs::read(assets().join("spider_assimp_1368.stl")).unwrap();
    let path = dir.write("truncated.stl", &spider[..84 + 50 * 100 + 7]);
    let err = io::load(&path).unwrap_err();
    assert!(matches!(err, MeshLoadError::Parse { format: io::MeshFormat::Stl, .. }), "{err}");
    assert!(err.to_string().contains("binary file ends early"), "{err}");
    // Only a header.
    let err = io::load(&dir.write("header.stl", &spider[..84])).unwrap_err();
    assert!(matches!(err, MeshLoadError::Parse { .. }), "{err}");

    // OFF with counts far beyond the data.
    let err = io::load(&dir.write("huge.off", b"OFF\n353535235358 6 0\n0 0 0\n")).unwrap_err();
    assert!(matches!(err, MeshLoadError::Parse { line: Some(2), .. }), "{err}");
    let err = io::load(&dir.write("huge2.off", b"OFF\n3 1000000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"))
        .unwrap_err();
    assert!(err.to_string().contains("ends after 1 of 1000000000000 faces"), "{err}");

    // PLY with an out-of-range index.
    let ply = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n\
               element face 2\nproperty list uchar int vertex_indices\nend_header\n\
               0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 3\n";
    let err = io::load(&dir.write("index.ply", ply.as_bytes())).unwrap_err();
    assert!(
        matches!(err, MeshLoadError::IndexOutOfRange { triangle: 1, index: 3, vertex_count: 3 }),
        "{err}"
    );

    // OBJ with a NaN vertex.
    let err = io::load(&dir.write("nan.obj", b"v 0 0 0\nv 1 NaN 0\nv 0 1 0\nf 1 2 3\n")).unwrap_err();
    assert!(matches!(err, MeshLoadError::NonFiniteVertex { index: 1 }), "{err}");

    // A binary PLY point cloud (like assimp's pond.0.ply, not vendored for its size).
    let mut cloud = b"ply\nformat binary_little_endian 1.0\nelement vertex 1000\nproperty float x\n\
                      property float y\nproperty float z\nproperty uchar red\nend_header\n"
        .to_vec();
    for i in 0..1000u32 {
        for c in [i as f32, 0.5, -1.0] {
            cloud.extend_from_slice(&c.to_le_bytes());
        }
        cloud.push(7);
    }
    assert!(matches!(io::load(&dir.write("cloud.ply", &cloud)), Err(MeshLoadError::NoTriangles)));

    // Upper-case extensions load; a directory named like a mesh is an I/O error with its path.
    let cube = std::fs::read(assets().join("parser_cases/OFF/Cube.off")).unwrap();
    assert_eq!(io::load(&dir.write("CUBE.OFF", &cube)).unwrap().triangles.len(), 12);
    let folder = dir.0.join("folder.obj");
    std::fs::create_dir_all(&folder).unwrap();
    match io::load(&folder) {
        Err(MeshLoadError::Io { path: Some(p), .. }) => assert_eq!(p, folder),
        other => panic!("expected an I/O error, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Round trips: random meshes written in each format by the test, read back.

/// A random polygon mesh: vertices with coordinates of a few significant digits or arbitrary
/// f32 bits (finite), and polygons of 3 to 6 distinct-or-not corners.
fn polygon_mesh() -> impl Strategy<Value = (Vec<Vec3>, Vec<Vec<u32>>)> {
    let coord = prop_oneof![(-1000i32..1000).prop_map(|i| i as f32 / 8.0), -1e6f32..1e6f32];
    (3usize..12).prop_flat_map(move |n| {
        let vertices = prop::collection::vec((coord.clone(), coord.clone(), coord.clone()), n)
            .prop_map(|v| v.into_iter().map(|(x, y, z)| Vec3::new(x, y, z)).collect::<Vec<_>>());
        let polygons = prop::collection::vec(prop::collection::vec(0..n as u32, 3..7), 1..8);
        (vertices, polygons)
    })
}

/// The fan triangulation the loaders promise.
fn fans(polygons: &[Vec<u32>]) -> Vec<[u32; 3]> {
    polygons.iter().flat_map(|p| (1..p.len() - 1).map(move |i| [p[0], p[i], p[i + 1]])).collect()
}

fn write_obj(v: &[Vec3], polygons: &[Vec<u32>]) -> String {
    let mut s = String::from("# written by the test\no mesh\n");
    for p in v {
        s += &format!("v {} {} {}\n", p.x, p.y, p.z);
    }
    for (k, poly) in polygons.iter().enumerate() {
        s += if k % 2 == 0 { "g even\n" } else { "g odd\n" };
        s += "f";
        for (j, &i) in poly.iter().enumerate() {
            // Mix absolute, relative and v//vn corner forms.
            s += &match j % 3 {
                0 => format!(" {}", i + 1),
                1 => format!(" {}", i as i64 - v.len() as i64),
                _ => format!(" {}//1", i + 1),
            };
        }
        s += "\n";
    }
    s
}

fn write_off(v: &[Vec3], polygons: &[Vec<u32>]) -> String {
    let mut s = format!("OFF\n# comment\n{} {} 0\n", v.len(), polygons.len());
    for p in v {
        s += &format!("{} {} {}\n", p.x, p.y, p.z);
    }
    for poly in polygons {
        s += &poly.len().to_string();
        for i in poly {
            s += &format!(" {i}");
        }
        s += " 255 0 0\n";
    }
    s
}

fn write_ply(v: &[Vec3], polygons: &[Vec<u32>], binary: bool) -> Vec<u8> {
    let format = if binary { "binary_little_endian" } else { "ascii" };
    let mut out = format!(
        "ply\nformat {format} 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\n\
         element face {}\nproperty list uchar int vertex_indices\nend_header\n",
        v.len(),
        polygons.len()
    )
    .into_bytes();
    for p in v {
        if binary {
            for c in p.to_array() {
                out.extend_from_slice(&c.to_le_bytes());
            }
        } else {
            out.extend_from_slice(format!("{} {} {}\n", p.x, p.y, p.z).as_bytes());
        }
    }
    for poly in polygons {
        if binary {
            out.push(poly.len() as u8);
            for &i in poly {
                out.extend_from_slice(&(i as i32).to_le_bytes());
            }
        } else {
            let line: Vec<String> = poly.iter().map(|i| i.to_string()).collect();
            out.extend_from_slice(format!("{} {}\n", poly.len(), line.join(" ")).as_bytes());
        }
    }
    out
}

fn write_stl(triangles: &[[Vec3; 3]], binary: bool) -> Vec<u8> {
    if binary {
        let mut out = b"solid but binary".to_vec();
        out.resize(80, b' ');
        out.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
        for t in triangles {
            out.extend_from_slice(&[0u8; 12]);
            for p in t {
                for c in p.to_array() {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
            out.extend_from_slice(&[0, 0]);
        }
        out
    } else {
        let mut s = String::from("solid test\n");
        for t in triangles {
            s += "facet normal 0 0 0\nouter loop\n";
            for p in t {
                s += &format!("vertex {} {} {}\n", p.x, p.y, p.z);
            }
            s += "endloop\nendfacet\n";
        }
        s += "endsolid test\n";
        s.into_bytes()
    }
}

/// Triangles as corner positions, for comparing meshes whose vertex numbering differs.
fn corner_positions(m: &MeshData) -> Vec<[Vec3; 3]> {
    m.triangles.iter().map(|t| t.map(|i| m.vertices[i as usize])).collect()
}

proptest! {
    #![proptest_config(kollide_testkit::proptest_config(10_000))]

    #[test]
    fn random_meshes_round_trip_through_every_format((vertices, polygons) in polygon_mesh()) {
        let triangles = fans(&polygons);
        let expected: Vec<[Vec3; 3]> = triangles.iter().map(|t| t.map(|i| vertices[i as usize])).collect();

        // OFF and PLY keep the vertex list as written.
        let exact = MeshData { vertices: vertices.clone(), triangles: triangles.clone() };
        prop_assert_eq!(&io::read_off(write_off(&vertices, &polygons).as_bytes()).unwrap(), &exact);
        prop_assert_eq!(&io::read_ply(&write_ply(&vertices, &polygons, false)[..]).unwrap(), &exact);
        prop_assert_eq!(&io::read_ply(&write_ply(&vertices, &polygons, true)[..]).unwrap(), &exact);

        // OBJ renumbers vertices by first use; STL welds equal corners. Compare corner positions.
        let obj = io::read_obj(write_obj(&vertices, &polygons).as_bytes()).unwrap();
        prop_assert_eq!(corner_positions(&obj), expected.clone());
        for binary in [false, true] {
            let stl = io::read_stl(&write_stl(&expected, binary)[..]).unwrap();
            prop_assert_eq!(corner_positions(&stl), expected.clone());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Corruptions: every loader returns a Result on damaged input, and an Ok result is valid.

/// Small valid files of each format to damage (read once).
fn seeds() -> &'static [(&'static str, Vec<u8>)] {
    static SEEDS: std::sync::OnceLock<Vec<(&'static str, Vec<u8>)>> = std::sync::OnceLock::new();
    SEEDS.get_or_init(load_seeds)
}

fn load_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let read = |p: &str| std::fs::read(assets().join("parser_cases").join(p)).unwrap();
    let mut binary_stl = read("STL/Spider_binary.stl");
    binary_stl.truncate(84 + 50 * 6);
    binary_stl[80..84].copy_from_slice(&6u32.to_le_bytes());
    vec![
        ("off", read("OFF/Cube.off")),
        ("ply", read("PLY/cube.ply")),
        ("ply", read("PLY/cube_binary.ply")),
        ("obj", read("OBJ/box.obj")),
        ("obj", read("OBJ/cube_usemtl.obj")),
        ("stl", read("STL/triangle_with_two_solids.stl")),
        ("stl", binary_stl),
    ]
}

/// One edit: overwrite a byte, insert bytes, delete a range, or truncate.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let interesting = prop::sample::select(b"0123456789-+.eE \n\r\t#/nNaIf\0\xff".to_vec());
    prop_oneof![
        (any::<usize>(), prop_oneof![interesting.clone(), any::<u8>()]).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), prop::collection::vec(interesting, 1..12)).prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<usize>(), 1usize..40).prop_map(|(i, n)| Edit::Delete(i, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, edit: &Edit) {
    let len = bytes.len().max(1);
    match edit {
        Edit::Set(i, b) => {
            if !bytes.is_empty() {
                bytes[i % len] = *b;
            }
        }
        Edit::Insert(i, b) => {
            let at = i % (bytes.len() + 1);
            bytes.splice(at..at, b.iter().copied());
        }
        Edit::Delete(i, n) => {
            let at = i % len;
            let end = (at + n).min(bytes.len());
            if at < end {
                bytes.drain(at..end);
            }
        }
        Edit::Truncate(i) => bytes.truncate(i % len),
    }
}

proptest! {
    #![proptest_config(kollide_testkit::proptest_config(10_000))]

    #[test]
    fn damaged_files_never_panic(seed in 0usize..7, edits in prop::collection::vec(edit(), 1..5)) {
        let (format, bytes) = &seeds()[seed];
        let mut bytes = bytes.clone();
        for e in &edits {
            apply(&mut bytes, e);
        }
        let result = match *format {
            "off" => io::read_off(&bytes[..]),
            "ply" => io::read_ply(&bytes[..]),
            "obj" => io::read_obj(&bytes[..]),
            _ => io::read_stl(&bytes[..]),
        };
        match result {
            Ok(m) => prop_assert!(io::validate(&m).is_ok()),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
