//! Profiling aid: per-query BVH work (node visits, leaves, triangle tests) and time for the
//! mesh query workloads of the benchmark (kollide only).
//!
//! `cargo run --release -p kollide-bench --example traversal_stats [bunny|torus80k|torus1m]
//! [ray|warm|split|any|point|build] [repeats]`
//!
//! `split` divides the closest-hit time: the library's cast against the same traversal whose
//! leaves only look up each ray's known answer (the same nodes visited, no triangle read), each
//! timed once cold (rays in order) and once warm (each ray cast a second time at once).
use glam::{Vec3, Vec4};
use kollide::bvh::Child;
use kollide::math::Ray3;
use kollide::mesh::TriMesh;
use kollide::mesh::io::load;
use kollide::primitive::{RayTriangleSetup, closest_point_triangle, ray_triangle_with};
use kollide_testkit::{random, shapes};
use std::path::Path;
use std::time::Instant;

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "bunny".into());
    let data = match which.as_str() {
        "torus80k" => shapes::torus(1.0, 0.35, 400, 100),
        "torus1m" => shapes::torus(1.0, 0.35, 1000, 500),
        _ => load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/cgal_bunny00.off")).unwrap(),
    };
    let mesh = TriMesh::new(data.vertices, data.triangles).unwrap();
    let b = mesh.bounds();
    let leaves: Vec<u32> = mesh
        .bvh()
        .nodes()
        .iter()
        .flat_map(|node| node.child)
        .filter_map(|code| match Child::decode(code) {
            Child::Leaf { count, .. } => Some(count),
            _ => None,
        })
        .collect();
    println!(
        "{} nodes ({} KiB), {} leaves of {:.2} triangles on average",
        mesh.bvh().nodes().len(),
        mesh.bvh().nodes().len() * 128 / 1024,
        leaves.len(),
        mesh.triangle_count() as f64 / leaves.len() as f64
    );
    let mut rng = random::rng(1);
    let n = 20_000;
    let rays: Vec<Ray3> = (0..n)
        .map(|_| {
            let o = b.center() + random::unit3(&mut rng) * b.size().length();
            let t = b.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * b.size();
            Ray3::new(o, t - o)
        })
        .collect();
    let corners = |k: u32| mesh.triangle(mesh.bvh().leaf_order()[k as usize]).unwrap();

    // Closest hit, with the library's traversal and a counting leaf test.
    let (mut nodes, mut leaves, mut tris) = (0usize, 0usize, 0usize);
    for r in &rays {
        let boxes = mesh.bvh().ray_box_setup(r);
        let setup = RayTriangleSetup::new(r);
        mesh.bvh().traverse_ordered(
            f32::MAX,
            |node, limit| {
                nodes += 1;
                node.ray_entry(&boxes, *limit)
            },
            |range, limit| {
                leaves += 1;
                tris += range.len();
                range
                    .filter_map(|k| ray_triangle_with(&setup, limit, &corners(k)))
                    .map(|h| h.t)
                    .reduce(f32::min)
            },
        );
    }
    let per = |x: usize| x as f64 / n as f64;
    println!("closest ray: {:.1} nodes, {:.1} leaves, {:.1} triangles", per(nodes), per(leaves), per(tris));

    // Any hit.
    let (mut nodes, mut tris) = (0usize, 0usize);
    for r in &rays {
        let boxes = mesh.bvh().ray_box_setup(r);
        let setup = RayTriangleSetup::new(r);
        mesh.bvh().traverse(
            |node| {
                nodes += 1;
                node.ray_entry(&boxes, f32::MAX).1
            },
            |mut range| {
                !range.any(|k| {
                    tris += 1;
                    ray_triangle_with(&setup, f32::MAX, &corners(k)).is_some()
                })
            },
        );
    }
    println!("any ray: {:.1} nodes, {:.1} triangles", per(nodes), per(tris));

    // Closest point.
    let grown = b.expanded(0.1 * b.size().max_element());
    let points: Vec<Vec3> = (0..n)
        .map(|_| grown.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * grown.size())
        .collect();
    let (mut nodes, mut tris, mut exact) = (0usize, 0usize, 0usize);
    let mut improved = 0usize;
    for &p in points.iter().take(2000) {
        mesh.bvh().traverse_ordered(
            f32::MAX,
            |node, limit| {
                nodes += 1;
                *limit = limit.min(node.min_max_distance_squared(p).min_element() * (1.0 + 1e-5));
                let d2 = node.distance_squared(p);
                (d2, d2.cmple(Vec4::splat(*limit)).bitmask())
            },
            |range, limit| {
                tris += range.len();
                let mut limit = limit;
                let mut found = None;
                for k in range {
                    let t = corners(k);
                    let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
                    if (lo - p).max(p - hi).max(Vec3::ZERO).length_squared() > limit {
                        continue;
                    }
                    exact += 1;
                    let d2 = (closest_point_triangle(p, &t).point - p).length_squared();
                    improved += usize::from(d2 < limit);
                    if d2 < limit {
                        limit = d2;
                        found = Some(d2);
                    }
                }
                found
            },
        );
    }
    println!(
        "closest point: {:.1} nodes, {:.1} triangles, {:.1} past the box test",
        nodes as f64 / 2000.0,
        tris as f64 / 2000.0,
        exact as f64 / 2000.0
    );
    println!("  of which {:.1} lowered the limit", improved as f64 / 2000.0);
    // What a perfect best-first search needs: the nodes and leaf triangles whose box is closer than
    // the answer.
    let (mut nodes, mut tris) = (0usize, 0usize);
    for &p in points.iter().take(2000) {
        let best = mesh.closest_point(p, f32::INFINITY).unwrap().distance.powi(2);
        let mut stack = vec![0u32];
        while let Some(i) = stack.pop() {
            nodes += 1;
            let node = &mesh.bvh().nodes()[i as usize];
            let d2 = node.distance_squared(p);
            for lane in 0..4 {
                if d2[lane] < best {
                    match Child::decode(node.child[lane]) {
                        Child::Inner(c) => stack.push(c),
                        Child::Leaf { count, .. } => tris += count as usize,
                        Child::Empty => {}
                    }
                }
            }
        }
    }
    println!(
        "closest point, ideal: {:.1} nodes, {:.1} triangles",
        nodes as f64 / 2000.0,
        tris as f64 / 2000.0
    );

    // Each ray's closest hit as (leaf slot, t), for the traversal without triangle tests.
    let slot_of: Vec<u32> = {
        let mut slot = vec![0; mesh.triangle_count()];
        for (k, &id) in mesh.bvh().leaf_order().iter().enumerate() {
            slot[id as usize] = k as u32;
        }
        slot
    };
    let answers: Vec<Option<(u32, f32)>> =
        rays.iter().map(|r| mesh.cast_ray(r, f32::MAX).map(|h| (slot_of[h.part as usize], h.t))).collect();
    let traversal_only = |r: &Ray3, answer: &Option<(u32, f32)>| {
        mesh.bvh()
            .cast_ray(r, f32::MAX, |range, _| answer.filter(|(k, _)| range.contains(k)).map(|(_, t)| t))
            .is_some()
    };
    let time = |name: &str, f: &dyn Fn() -> usize| {
        let start = Instant::now();
        let count = f();
        println!("{name}: {:.0} ns/query ({count})", start.elapsed().as_nanos() as f64 / n as f64);
    };
    // An optional second argument times one query kind only, many times (for a profiler).
    let only = std::env::args().nth(2).unwrap_or_default();
    let repeats =
        std::env::args().nth(3).and_then(|s| s.parse().ok()).unwrap_or(if only.is_empty() { 2 } else { 20 });
    for _ in 0..repeats {
        if only.is_empty() || only == "ray" || only == "warm" {
            time("closest ray", &|| rays.iter().filter(|r| mesh.cast_ray(r, f32::MAX).is_some()).count());
        }
        if only == "warm" {
            // Each ray twice in a row: the second cast finds its nodes and triangles in cache.
            time("closest ray twice", &|| {
                rays.iter()
                    .filter(|r| mesh.cast_ray(r, f32::MAX).is_some() && mesh.cast_ray(r, f32::MAX).is_some())
                    .count()
            });
        }
        if only == "split" {
            time("closest ray", &|| rays.iter().filter(|r| mesh.cast_ray_t(r, f32::MAX).is_some()).count());
            time("closest ray twice", &|| {
                rays.iter()
                    .filter(|r| {
                        mesh.cast_ray_t(r, f32::MAX).is_some() & mesh.cast_ray_t(r, f32::MAX).is_some()
                    })
                    .count()
            });
            time("traversal only", &|| {
                rays.iter().zip(&answers).filter(|(r, a)| traversal_only(r, a)).count()
            });
            time("traversal only twice", &|| {
                rays.iter().zip(&answers).filter(|(r, a)| traversal_only(r, a) & traversal_only(r, a)).count()
            });
        }
        if only.is_empty() || only == "any" {
            time("any ray", &|| rays.iter().filter(|r| mesh.intersects_ray(r, f32::MAX)).count());
        }
        if only == "build" {
            let start = Instant::now();
            let rebuilt = TriMesh::new(mesh.vertices().to_vec(), mesh.triangles().to_vec()).unwrap();
            println!(
                "build: {:.2} ms ({} nodes)",
                start.elapsed().as_secs_f64() * 1e3,
                rebuilt.bvh().nodes().len()
            );
        }
        if only.is_empty() || only == "point" {
            time("closest point", &|| {
                let near =
                    |p: &&Vec3| mesh.closest_point(**p, f32::INFINITY).is_some_and(|c| c.distance < 0.01);
                points.iter().filter(near).count()
            });
        }
    }
}
