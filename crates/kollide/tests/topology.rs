//! The topology report on vendored meshes, hand-made cases, generated meshes, and random index
//! soups checked against a map-based reference written here.

use kollide::mesh::io;
use kollide::mesh::{TopologyReport, topology};
use kollide_testkit::shapes::torus;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn load(name: &str) -> io::MeshData {
    io::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets").join(name)).unwrap()
}

fn report(m: &io::MeshData) -> TopologyReport {
    topology(&m.triangles, m.vertices.len())
}

fn signed_volume(m: &io::MeshData) -> f64 {
    m.triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| m.vertices[i as usize].as_dvec3());
            a.dot(b.cross(c)) / 6.0
        })
        .sum()
}

#[test]
fn vendored_closed_meshes_are_closed_and_outward() {
    // (file, connected components): knot2 is a two-loop link, the ant's legs are separate shells.
    for (name, components) in [
        ("cgal_bunny00.off", 1),
        ("cgal_armadillo.off", 1),
        ("cgal_elephant.off", 1),
        ("cgal_fandisk.off", 1),
        ("cgal_knot2.off", 2),
        ("bunny_npm_3674.obj", 1),
        ("ant_pyvista_912.ply", 15),
        ("sphere_pyvista_840.ply", 1),
    ] {
        let m = load(name);
        let r = report(&m);
        println!("{name}: {r:?}");
        assert!(r.closed, "{name}");
        assert_eq!((r.boundary_edges, r.non_manifold_edges), (0, 0), "{name}");
        assert_eq!(r.inconsistent_orientation_edges, 0, "{name}");
        assert_eq!(r.components, components, "{name}");
        // Closed 2-manifold: every edge has two triangles, so 2E = 3F.
        assert_eq!(2 * r.edge_count, 3 * r.triangle_count, "{name}");
        assert!(signed_volume(&m) > 0.0, "{name} is wound inward");
    }
}

#[test]
fn vendored_open_meshes() {
    let teapot = report(&load("teapot_npm_992.obj"));
    assert!(!teapot.closed);
    assert_eq!(teapot.boundary_edges, 528);
    assert_eq!(teapot.non_manifold_edges, 0);
    for name in ["spider_assimp_1368.obj", "spider_assimp_1368.stl"] {
        let r = report(&load(name));
        assert!(!r.closed && r.boundary_edges > 0, "{name}: {r:?}");
    }
}

const TETRA: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];

#[test]
fn three_triangles_on_one_edge_are_non_manifold() {
    let r = topology(&[[0, 1, 2], [1, 0, 3], [0, 1, 4]], 5);
    assert_eq!(r.non_manifold_edges, 1);
    assert_eq!(r.boundary_edges, 6);
    assert_eq!(r.edge_count, 7);
    assert_eq!(r.components, 1);
    assert!(!r.closed);
    // Two closed tetrahedra glued along one edge: closed would need exactly two per edge.
    let mut glued: Vec<[u32; 3]> = TETRA.to_vec();
    glued.extend(TETRA.iter().map(|t| t.map(|i| if i >= 2 { i + 2 } else { i })));
    let r = topology(&glued, 6);
    assert_eq!((r.non_manifold_edges, r.boundary_edges, r.closed), (1, 0, false));
}

#[test]
fn disjoint_tetrahedra_are_two_components() {
    let mut two: Vec<[u32; 3]> = TETRA.to_vec();
    two.extend(TETRA.iter().map(|t| t.map(|i| i + 4)));
    let r = topology(&two, 8);
    assert_eq!(r.components, 2);
    assert!(r.closed);
    assert_eq!(r.edge_count, 12);
    // An unused vertex between them is neither a component nor an edge.
    let shifted: Vec<[u32; 3]> = two.iter().map(|t| t.map(|i| if i >= 4 { i + 1 } else { i })).collect();
    let r = topology(&shifted, 9);
    assert_eq!((r.components, r.unused_vertices, r.closed), (2, 1, true));
}

#[test]
fn a_flipped_triangle_is_counted() {
    let mut flipped = TETRA;
    flipped[2] = [1, 3, 2];
    let r = topology(&flipped, 4);
    assert!(r.closed, "orientation does not affect closedness");
    assert_eq!(r.inconsistent_orientation_edges, 3);
    assert_eq!(topology(&TETRA, 4).inconsistent_orientation_edges, 0);
}

#[test]
fn a_million_triangle_torus() {
    let m = torus(2.0, 0.5, 1000, 500);
    let start = std::time::Instant::now();
    let r = report(&m);
    println!("topology of {} triangles: {:?}", m.triangles.len(), start.elapsed());
    assert_eq!(r.triangle_count, 1_000_000);
    assert_eq!(r.edge_count, 1_500_000);
    assert!(r.closed);
    assert_eq!((r.components, r.inconsistent_orientation_edges, r.unused_vertices), (1, 0, 0));
}

#[test]
fn dragon_when_fetched() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/fetched/dragon_vrip.ply");
    if !path.exists() {
        println!("skipped: run scripts/fetch-meshes.sh to fetch {}", path.display());
        return;
    }
    let m = io::load(&path).unwrap();
    let r = report(&m);
    println!("dragon: {r:?}");
    // The decimated scan has holes (its README says so).
    assert!(!r.closed && r.boundary_edges > 0);
    assert_eq!(r.triangle_count, 871_414);
}

/// Reference: undirected edges in a map with their directed uses, components by flood fill over
/// a vertex adjacency map. Written for clarity, not speed.
fn reference(triangles: &[[u32; 3]], vertex_count: usize) -> TopologyReport {
    let in_range: Vec<[u32; 3]> =
        triangles.iter().copied().filter(|t| t.iter().all(|&i| (i as usize) < vertex_count)).collect();
    let degenerate = |t: &[u32; 3]| t[0] == t[1] || t[1] == t[2] || t[2] == t[0];
    let mut edges: BTreeMap<(u32, u32), Vec<(u32, u32)>> = BTreeMap::new();
    for t in in_range.iter().filter(|t| !degenerate(t)) {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            edges.entry((a.min(b), a.max(b))).or_default().push((a, b));
        }
    }
    let mut adjacency: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for t in &in_range {
        for &a in t {
            for &b in t {
                adjacency.entry(a).or_default().insert(b);
            }
        }
    }
    let mut seen = BTreeSet::new();
    let mut components = 0;
    for &start in adjacency.keys() {
        if seen.insert(start) {
            components += 1;
            let mut stack = vec![start];
            while let Some(v) = stack.pop() {
                for &w in &adjacency[&v] {
                    if seen.insert(w) {
                        stack.push(w);
                    }
                }
            }
        }
    }
    let boundary = edges.values().filter(|u| u.len() == 1).count();
    let non_manifold = edges.values().filter(|u| u.len() > 2).count();
    let out_of_range = triangles.len() - in_range.len();
    TopologyReport {
        triangle_count: triangles.len(),
        vertex_count,
        unused_vertices: vertex_count - adjacency.len(),
        edge_count: edges.len(),
        boundary_edges: boundary,
        non_manifold_edges: non_manifold,
        degenerate_triangles: triangles.iter().filter(|t| degenerate(t)).count(),
        out_of_range_triangles: out_of_range,
        components,
        closed: !edges.is_empty() && boundary == 0 && non_manifold == 0 && out_of_range == 0,
        inconsistent_orientation_edges: edges.values().filter(|u| u.len() == 2 && u[0] == u[1]).count(),
        self_intersecting_pairs: None,
    }
}

/// Index soups over few vertices (so edges repeat), some indices out of range; half the cases
/// are closed meshes (tetrahedra and octahedra) with random faces flipped or dropped.
fn soup() -> impl Strategy<Value = (Vec<[u32; 3]>, usize)> {
    let random = (1usize..12)
        .prop_flat_map(|n| (prop::collection::vec(prop::array::uniform3(0..n as u32 + 2), 0..24), Just(n)));
    let octahedron: [[u32; 3]; 8] =
        [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]];
    let closed =
        (prop::collection::vec((any::<bool>(), any::<u8>()), 8), 0u32..4).prop_map(move |(edits, shift)| {
            let mut tris: Vec<[u32; 3]> = Vec::new();
            for (k, (flip, op)) in edits.iter().enumerate() {
                let t = octahedron[k].map(|i| i + shift);
                match op % 8 {
                    0 => {}                                      // dropped
                    1 => tris.extend([t, t]),                    // doubled
                    _ if *flip => tris.push([t[0], t[2], t[1]]), // flipped
                    _ => tris.push(t),
                }
            }
            tris.extend(TETRA.iter().map(|t| t.map(|i| i + 10)));
            (tris, 14 + shift as usize)
        });
    prop_oneof![random, closed]
}

proptest! {
    #![proptest_config(kollide_testkit::proptest_config(10_000))]

    #[test]
    fn topology_matches_the_reference((triangles, vertex_count) in soup()) {
        prop_assert_eq!(topology(&triangles, vertex_count), reference(&triangles, vertex_count));
    }

    #[test]
    fn topology_ignores_labels_and_order(
        (triangles, vertex_count) in soup(),
        seed in any::<u64>(),
        spread in prop_oneof![Just(1u32), Just(1000), Just(1 << 27)],
    ) {
        // Relabel vertices by an injective map (a permutation times `spread`, so sparse labels in
        // a huge vertex count exercise the compacting path; out-of-range indices stay out of
        // range), rotate each triangle's corners and shuffle the triangle order.
        use rand::{SeedableRng, seq::SliceRandom};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut labels: Vec<u32> = (0..vertex_count as u32).collect();
        labels.shuffle(&mut rng);
        let relabel = |i: u32| match labels.get(i as usize) {
            Some(&l) => l * spread,
            None => u32::MAX - (i - vertex_count as u32), // distinct and still out of range
        };
        let new_count = if spread == 1 { vertex_count } else { (vertex_count - 1) * spread as usize + 1 };
        let mut moved: Vec<[u32; 3]> = triangles
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let t = t.map(relabel);
                [t, [t[1], t[2], t[0]], [t[2], t[0], t[1]]][k % 3]
            })
            .collect();
        moved.shuffle(&mut rng);
        let (a, b) = (topology(&triangles, vertex_count), topology(&moved, new_count));
        prop_assert_eq!(
            (a.edge_count, a.boundary_edges, a.non_manifold_edges, a.components, a.closed),
            (b.edge_count, b.boundary_edges, b.non_manifold_edges, b.components, b.closed)
        );
        prop_assert_eq!(
            (a.degenerate_triangles, a.out_of_range_triangles, a.inconsistent_orientation_edges),
            (b.degenerate_triangles, b.out_of_range_triangles, b.inconsistent_orientation_edges)
        );
        prop_assert_eq!(a.unused_vertices + new_count - vertex_count, b.unused_vertices);
    }
}
