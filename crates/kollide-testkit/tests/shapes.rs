//! Properties of the procedural meshes: closed, 2-manifold, outward-wound, embedded, concave.
//!
//! Geometry checks run in f64 with formulas written here (divergence-theorem volume,
//! Möller–Trumbore crossings, orientation-sign segment/triangle tests), independent of kollide's
//! queries; only the topology report comes from kollide.

use glam::{DVec3, Vec3};
use kollide::mesh::io::{MeshData, validate};
use kollide::mesh::{TopologyReport, topology};
use kollide_testkit::shapes::{asteroid, grid, icosphere, torus};
use std::f64::consts::PI;

fn corners(m: &MeshData, t: [u32; 3]) -> [DVec3; 3] {
    t.map(|i| m.vertices[i as usize].as_dvec3())
}

fn report(m: &MeshData) -> TopologyReport {
    topology(&m.triangles, m.vertices.len())
}

/// Signed volume by the divergence theorem, Σ a·(b×c)/6: positive for outward winding.
fn signed_volume(m: &MeshData) -> f64 {
    m.triangles
        .iter()
        .map(|&t| {
            let [a, b, c] = corners(m, t);
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

/// Volume centroid: the volume-weighted centroids of the tetrahedra (origin, a, b, c).
fn centroid(m: &MeshData) -> DVec3 {
    let mut sum = DVec3::ZERO;
    for &t in &m.triangles {
        let [a, b, c] = corners(m, t);
        sum += a.dot(b.cross(c)) / 6.0 * (a + b + c) / 4.0;
    }
    sum / signed_volume(m)
}

/// Number of triangles the ray `o + t·d`, `t > 0`, crosses (Möller–Trumbore).
fn crossings(m: &MeshData, o: DVec3, d: DVec3) -> usize {
    m.triangles
        .iter()
        .filter(|&&t| {
            let [a, b, c] = corners(m, t);
            let (e1, e2) = (b - a, c - a);
            let p = d.cross(e2);
            let det = e1.dot(p);
            if det.abs() < 1e-14 {
                return false;
            }
            let s = o - a;
            let u = s.dot(p) / det;
            let q = s.cross(e1);
            let v = d.dot(q) / det;
            u >= 0.0 && v >= 0.0 && u + v <= 1.0 && e2.dot(q) / det > 0.0
        })
        .count()
}

/// Triangles whose outward normal points toward `c`: a surface star-shaped from `c` has none.
fn facing(m: &MeshData, c: DVec3) -> Vec<[u32; 3]> {
    m.triangles
        .iter()
        .copied()
        .filter(|&t| {
            let [a, b, d] = corners(m, t);
            (b - a).cross(d - a).dot((a + b + d) / 3.0 - c) < 0.0
        })
        .collect()
}

fn euler_characteristic(m: &MeshData) -> i64 {
    let r = report(m);
    (r.vertex_count - r.unused_vertices) as i64 - r.edge_count as i64 + r.triangle_count as i64
}

fn orient(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    (b - a).cross(c - a).dot(d - a)
}

/// The open segment `pq` passes strictly through the interior of triangle `abc`.
fn segment_crosses(p: DVec3, q: DVec3, [a, b, c]: [DVec3; 3]) -> bool {
    let (sp, sq) = (orient(a, b, c, p), orient(a, b, c, q));
    if sp * sq >= 0.0 {
        return false;
    }
    let (u, v, w) = (orient(p, q, a, b), orient(p, q, b, c), orient(p, q, c, a));
    (u > 0.0 && v > 0.0 && w > 0.0) || (u < 0.0 && v < 0.0 && w < 0.0)
}

/// Pairs of triangles that share at most one vertex and intersect (an edge of one strictly
/// crosses the other). Broad phase: sweep and prune on x over the triangle boxes.
fn self_intersections(m: &MeshData) -> usize {
    let boxes: Vec<(DVec3, DVec3)> = m
        .triangles
        .iter()
        .map(|&t| {
            let [a, b, c] = corners(m, t);
            (a.min(b).min(c), a.max(b).max(c))
        })
        .collect();
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x));
    let mut hits = 0;
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].0.x > boxes[i].1.x {
                break;
            }
            let overlap = boxes[i].0.cmple(boxes[j].1).all() && boxes[j].0.cmple(boxes[i].1).all();
            let (ti, tj) = (m.triangles[i], m.triangles[j]);
            let shared = ti.iter().filter(|v| tj.contains(v)).count();
            if !overlap || shared >= 2 {
                continue;
            }
            let (ci, cj) = (corners(m, ti), corners(m, tj));
            let crosses =
                |x: [DVec3; 3], y: [DVec3; 3]| (0..3).any(|e| segment_crosses(x[e], x[(e + 1) % 3], y));
            if crosses(ci, cj) || crosses(cj, ci) {
                hits += 1;
            }
        }
    }
    hits
}

fn assert_closed_outward(m: &MeshData, genus: i64, what: &str) {
    validate(m).unwrap();
    let r = report(m);
    assert!(r.closed, "{what}: {r:?}");
    assert_eq!(r.components, 1, "{what}");
    assert_eq!(r.non_manifold_edges, 0, "{what}");
    assert_eq!(r.degenerate_triangles, 0, "{what}");
    assert_eq!(r.unused_vertices, 0, "{what}");
    assert_eq!(r.inconsistent_orientation_edges, 0, "{what}");
    assert_eq!(euler_characteristic(m), 2 - 2 * genus, "{what}");
    assert!(signed_volume(m) > 0.0, "{what}: inward winding");
}

#[test]
fn torus_is_a_closed_outward_genus_one_surface() {
    for (rings, sides) in [(3, 3), (48, 24), (200, 100)] {
        let m = torus(2.0, 0.5, rings, sides);
        assert_eq!(m.triangles.len(), 2 * rings * sides);
        assert_eq!(m.vertices.len(), rings * sides);
        assert_closed_outward(&m, 1, &format!("torus {rings}x{sides}"));
    }
    // The polyhedron converges to the torus volume 2π²Rr² from below.
    let exact = 2.0 * PI * PI * 2.0 * 0.25;
    let v = signed_volume(&torus(2.0, 0.5, 200, 100));
    assert!(v < exact && v > 0.998 * exact, "{v} vs {exact}");
    // Counts below 3 are clamped.
    assert_eq!(torus(1.0, 0.2, 0, 1).triangles.len(), 18);
    // Every triangle of a fine torus faces away from the tube centre line.
    let m = torus(2.0, 0.5, 64, 32);
    for &t in &m.triangles {
        let [a, b, c] = corners(&m, t);
        let mid = (a + b + c) / 3.0;
        let ring = DVec3::new(mid.x, mid.y, 0.0).normalize() * 2.0;
        assert!((b - a).cross(c - a).dot(mid - ring) > 0.0);
    }
}

#[test]
fn icosphere_counts_and_shape() {
    for s in 0..5 {
        let m = icosphere(s);
        assert_eq!(m.triangles.len(), 20 << (2 * s));
        assert_eq!(m.vertices.len(), (10 << (2 * s)) + 2);
        assert_closed_outward(&m, 0, &format!("icosphere {s}"));
        assert!(m.vertices.iter().all(|v| (v.length() - 1.0).abs() < 1e-6));
    }
    let v = signed_volume(&icosphere(4));
    assert!(v < 4.0 / 3.0 * PI && v > 0.99 * 4.0 / 3.0 * PI, "{v}");
    assert_eq!(icosphere(50).triangles.len(), 20 << 18);
}

#[test]
fn grid_is_flat_open_and_faces_up() {
    for n in [1, 2, 7, 64] {
        let m = grid(n);
        assert_eq!(m.triangles.len(), 2 * n * n);
        let r = report(&m);
        assert!(!r.closed);
        assert_eq!(r.boundary_edges, 4 * n);
        assert_eq!((r.components, r.inconsistent_orientation_edges, r.non_manifold_edges), (1, 0, 0));
        for &t in &m.triangles {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            assert_eq!(a.z, 0.0);
            assert!((b - a).cross(c - a).z > 0.0);
        }
        let area: f32 = m
            .triangles
            .iter()
            .map(|&t| {
                let [a, b, c] = t.map(|i| m.vertices[i as usize]);
                (b - a).cross(c - a).length() / 2.0
            })
            .sum();
        assert!((area - 4.0).abs() < 1e-4);
    }
    assert_eq!(grid(0).triangles.len(), 2);
}

#[test]
fn asteroids_are_closed_manifold_and_outward() {
    for seed in 0..6 {
        for target in [5_000, 20_000, 50_000] {
            let m = asteroid(seed, target);
            let n = m.triangles.len();
            assert!(n as f64 > 0.85 * target as f64 && (n as f64) < 1.15 * target as f64, "{n} for {target}");
            assert_closed_outward(&m, 0, &format!("asteroid {seed}/{target}"));
        }
    }
    assert_eq!(asteroid(1, 0).triangles.len(), 180);
    assert_eq!(asteroid(1, usize::MAX).triangles.len(), 20 * 300 * 300);
}

#[test]
fn asteroids_have_overhangs() {
    // Not star-shaped from its centroid: some triangle faces the centroid, and the ray from the
    // centroid through it crosses the surface at least three times.
    for seed in 0..24 {
        for target in [5_000, 20_000] {
            let m = asteroid(seed, target);
            let c = centroid(&m);
            let facing = facing(&m, c);
            assert!(!facing.is_empty(), "asteroid {seed}/{target} is star-shaped");
            let most = facing
                .iter()
                .take(8)
                .map(|&t| {
                    let [a, b, d] = corners(&m, t);
                    crossings(&m, c, (a + b + d) / 3.0 - c)
                })
                .max()
                .unwrap_or(0);
            assert!(most >= 3, "asteroid {seed}/{target}: {most} crossings");
        }
    }
}

#[test]
fn asteroids_have_craters_relief() {
    // Distances from the centroid spread far beyond a sphere's.
    for seed in 0..6 {
        let m = asteroid(seed, 5_000);
        let c = centroid(&m);
        let (lo, hi) = m.vertices.iter().fold((f64::MAX, 0.0f64), |(lo, hi), v| {
            let d = (v.as_dvec3() - c).length();
            (lo.min(d), hi.max(d))
        });
        assert!(lo < 0.75 * hi, "seed {seed}: {lo} .. {hi}");
    }
}

#[test]
fn asteroids_do_not_self_intersect() {
    for (seed, target) in [(0, 5_000), (1, 5_000), (2, 20_000), (3, 20_000), (4, 50_000)] {
        let m = asteroid(seed, target);
        assert_eq!(self_intersections(&m), 0, "asteroid {seed}/{target}");
    }
    // The checker itself finds a crossing: two triangles through each other.
    let crossed = MeshData {
        vertices: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.5, 0.5, 1.0),
        ],
        triangles: vec![[0, 1, 2], [3, 4, 5]],
    };
    assert_eq!(self_intersections(&crossed), 1);
    // And on a whole mesh: a spindle torus (tube radius above the ring radius) passes through
    // itself near the axis.
    assert!(self_intersections(&torus(1.0, 1.5, 32, 16)) > 0);
}

#[test]
fn asteroids_are_deterministic_per_seed() {
    assert_eq!(asteroid(42, 8_000), asteroid(42, 8_000));
    assert_ne!(asteroid(42, 8_000).vertices, asteroid(43, 8_000).vertices);
    assert_eq!(asteroid(42, 8_000).triangles, asteroid(43, 8_000).triangles);
}
