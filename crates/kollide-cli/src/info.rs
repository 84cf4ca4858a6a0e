//! `kollide info`: what this build of kollide is and what it can answer.

/// Query families available in this build, as (family, what it offers). Keep in step with the
/// public API of `kollide::{bounds, primitive, mesh, broad}`.
const QUERY_FAMILIES: &[(&str, &str)] = &[
    (
        "bounding volumes",
        "Aabb3/Aabb2 (overlap, containment, closest point, ray interval, affine transform), \
         Sphere/Circle, Obb3 (15-axis SAT), k-DOPs Kdop14/Kdop18/Kdop26",
    ),
    ("closest points", "point-segment, point-triangle (with feature), segment-segment, point-box"),
    (
        "overlap tests",
        "triangle-triangle (test and intersection segment), sphere-sphere, sphere-box, \
         sphere-oriented box, sphere-triangle, triangle-box, box-box, box/oriented box vs plane",
    ),
    (
        "ray casts",
        "ray vs plane, sphere, box, oriented box, capsule, triangle (watertight, optional \
         per-ray setup), segment-triangle",
    ),
    (
        "2D",
        "point in polygon (crossing, winding, convex), segment-segment, circle vs circle, box, \
         polygon; rays vs box, circle, segment, polygon",
    ),
    ("predicates", "exact orient2d, orient3d"),
    (
        "triangle meshes",
        "TriMesh with a 4-wide BVH (refit), MeshInstance under any affine map: rays (closest, \
         any, all, segments, polylines), spheres, boxes, closest point, inside/outside, signed \
         distance; OBJ/STL/PLY/OFF loading",
    ),
    (
        "mesh vs mesh",
        "overlap with solid semantics, intersecting triangle pairs, distance, under a relative \
         affine map with a per-pair cache (kollide check)",
    ),
    ("sphere sets", "covers of a mesh by balls, set vs mesh (exact under affine maps), set vs set"),
    (
        "fields",
        "analytic signed distances and combinations, grids sampled from meshes, spatial \
         signatures, point sets and fields against fields",
    ),
    (
        "broad phase",
        "SpatialHash, SweepAndPrune, BruteForce over Aabb2/Aabb3: pairs with began/ended \
         events, box and ray queries",
    ),
];

/// CPU features this binary was compiled to use (beyond the target's baseline).
fn target_features() -> Vec<&'static str> {
    let mut features = Vec::new();
    macro_rules! check {
        ($($f:literal),*) => {
            $(if cfg!(target_feature = $f) {
                features.push($f);
            })*
        };
    }
    check!("sse2", "sse4.1", "avx", "avx2", "fma", "neon");
    features
}

/// `kollide info`.
pub fn run() {
    let profile = if cfg!(debug_assertions) { "debug (assertions on; not for timing)" } else { "release" };
    let features = target_features();
    println!("kollide {}", env!("CARGO_PKG_VERSION"));
    println!("build profile: {profile}");
    println!("cargo features: none (kollide has no optional features yet)");
    println!(
        "target: {} {}, CPU features: {}",
        std::env::consts::ARCH,
        std::env::consts::OS,
        if features.is_empty() { "baseline only".to_string() } else { features.join(", ") }
    );
    println!("query families:");
    let width = QUERY_FAMILIES.iter().map(|(f, _)| f.len()).max().unwrap_or(0);
    for (family, what) in QUERY_FAMILIES {
        println!("  {family:<width$}  {what}");
    }
}
