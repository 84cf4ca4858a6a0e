use kollide::mesh::TriMesh;
use kollide_testkit::shapes;
use std::time::Instant;
fn main() {
    let what = std::env::args().nth(1).unwrap_or_default();
    let data = shapes::torus(1.0, 0.35, 1000, 500);
    if what == "build" {
        for _ in 0..3 {
            let t = Instant::now();
            let m = TriMesh::new(data.vertices.clone(), data.triangles.clone()).unwrap();
            println!("build {:?} nodes {}", t.elapsed(), m.bvh().nodes().len());
        }
    } else {
        let data = if std::env::args().nth(2).is_some() {
            shapes::torus(1.0, 0.35, 40, 25)
        } else {
            shapes::torus(1.0, 0.35, 400, 100)
        };
        let m = TriMesh::new(data.vertices.clone(), data.triangles.clone()).unwrap();
        let b = m.bounds();
        let mut rng = kollide_testkit::random::rng(1);
        let rays: Vec<_> = (0..200000)
            .map(|_| {
                let o = b.center() + kollide_testkit::random::unit3(&mut rng) * b.size().length();
                let t = b.min
                    + (kollide_testkit::random::point3(&mut rng, 0.5) + glam::Vec3::splat(0.5)) * b.size();
                kollide::math::Ray3::new(o, t - o)
            })
            .collect();
        let t = Instant::now();
        let mut hits = 0;
        for r in &rays {
            if m.cast_ray(r, f32::MAX).is_some() {
                hits += 1;
            }
        }
        println!("rays {:?} per ray {:?} hits {hits}", t.elapsed(), t.elapsed() / rays.len() as u32);
        let t = Instant::now();
        let mut n = 0u32;
        for r in &rays {
            if m.bvh().cast_ray(r, f32::MAX, |_, _| None).is_some() {
                n += 1;
            }
        }
        println!("box-only traversal per ray {:?} {n}", t.elapsed() / rays.len() as u32);
        let t = Instant::now();
        for r in &rays {
            std::hint::black_box(kollide::primitive::RayTriangleSetup::new(r));
        }
        println!("setup per ray {:?}", t.elapsed() / rays.len() as u32);
        let tri = m.triangle(0).unwrap();
        let t = Instant::now();
        for r in &rays {
            std::hint::black_box(kollide::primitive::ray_triangle(r, f32::MAX, std::hint::black_box(&tri)));
        }
        println!("one ray_triangle per ray {:?}", t.elapsed() / rays.len() as u32);
        let (mut nodes, mut leaves, mut tris) = (0u64, 0u64, 0u64);
        for r in rays.iter().take(10000) {
            let setup = kollide::primitive::RayTriangleSetup::new(r);
            let mut limit_hits = 0;
            m.bvh().traverse_ordered(
                f32::MAX,
                |node, limit| {
                    nodes += 1;
                    node.ray_entry(&kollide::bvh::RayBoxSetup::new(r), limit)
                },
                |range, limit| {
                    leaves += 1;
                    tris += range.len() as u64;
                    let mut l = limit;
                    let mut f = None;
                    for k in range {
                        let tri = m.triangle(m.bvh().leaf_order()[k as usize]).unwrap();
                        if let Some(h) = kollide::primitive::ray_triangle_with(&setup, l, &tri) {
                            l = h.t;
                            f = Some(l);
                            limit_hits += 1;
                        }
                    }
                    f
                },
            );
        }
        println!(
            "per ray: nodes {} leaves {} tris {}",
            nodes as f64 / 1e4,
            leaves as f64 / 1e4,
            tris as f64 / 1e4
        );
    }
}
#[allow(dead_code)]
fn stats() {}
