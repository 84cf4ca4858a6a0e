//! Profiling aid: closest-hit rays against an 80k-triangle torus (kollide only).
use kollide::math::Ray3;
use kollide::mesh::TriMesh;
use kollide_testkit::{random, shapes};
use std::time::Instant;

fn main() {
    let count: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let data = shapes::torus(1.0, 0.35, 400, 100);
    let mesh = TriMesh::new(data.vertices, data.triangles).unwrap();
    let b = mesh.bounds();
    let mut rng = random::rng(1);
    let rays: Vec<Ray3> = (0..count)
        .map(|_| {
            let o = b.center() + random::unit3(&mut rng) * b.size().length();
            let t = b.min + (random::point3(&mut rng, 0.5) + glam::Vec3::splat(0.5)) * b.size();
            Ray3::new(o, t - o)
        })
        .collect();
    let mode = std::env::args().nth(2).unwrap_or_default();
    let start = Instant::now();
    let hits = match mode.as_str() {
        "none" => 0,
        "count" => {
            let (mut nodes, mut leaves) = (0usize, 0usize);
            for r in &rays {
                let setup = kollide::bvh::RayBoxSetup::new(r);
                mesh.bvh().traverse_ordered(
                    f32::MAX,
                    |node, limit| {
                        nodes += 1;
                        node.ray_entry(&setup, limit)
                    },
                    |_, _| {
                        leaves += 1;
                        None
                    },
                );
            }
            println!(
                "box-only: {} nodes, {} leaves per ray",
                nodes as f64 / count as f64,
                leaves as f64 / count as f64
            );
            0
        }
        "boxes" => rays.iter().filter(|r| mesh.bvh().cast_ray(r, f32::MAX, |_, _| None).is_some()).count(),
        _ => rays.iter().filter(|r| mesh.cast_ray(r, f32::MAX).is_some()).count(),
    };
    println!("{hits} hits, {:?} per ray", start.elapsed() / count as u32);
}
