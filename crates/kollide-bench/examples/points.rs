//! Profiling aid: closest-point queries against the vendored bunny (kollide only).
use kollide::mesh::TriMesh;
use kollide::mesh::io::load;
use kollide_testkit::random;
use std::path::Path;
use std::time::Instant;

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/cgal_bunny00.off");
    let data = load(&path).unwrap();
    let mesh = TriMesh::new(data.vertices, data.triangles).unwrap();
    let grown = mesh.bounds().expanded(0.1 * mesh.bounds().size().max_element());
    let mut rng = random::rng(1);
    let points: Vec<glam::Vec3> = (0..20_000)
        .map(|_| grown.min + (random::point3(&mut rng, 0.5) + glam::Vec3::splat(0.5)) * grown.size())
        .collect();
    let (mut nodes, mut tris) = (0usize, 0usize);
    for &p in points.iter().take(2000) {
        let mut best = f32::INFINITY;
        mesh.bvh().traverse_ordered(
            f32::MAX,
            |node, limit| {
                nodes += 1;
                let d2 = node.distance_squared(p);
                (d2, d2.cmple(glam::Vec4::splat(limit)).bitmask())
            },
            |range, limit| {
                tris += range.len();
                let mut found = None;
                for k in range {
                    let id = mesh.bvh().leaf_order()[k as usize];
                    let t = mesh.triangle(id).unwrap();
                    let d2 = (kollide::primitive::closest_point_triangle(p, &t).point - p).length_squared();
                    if d2 < best.min(limit) {
                        best = d2;
                        found = Some(d2);
                    }
                }
                found
            },
        );
    }
    println!("per query: {} nodes, {} triangles", nodes as f64 / 2000.0, tris as f64 / 2000.0);
    let start = Instant::now();
    let total: f32 = points.iter().map(|&p| mesh.closest_point(p, f32::INFINITY).unwrap().distance).sum();
    println!("{:?} per query ({total})", start.elapsed() / points.len() as u32);
}
