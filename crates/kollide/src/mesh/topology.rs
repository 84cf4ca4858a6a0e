//! Mesh topology report: edges, boundary, non-manifold edges, orientation, connected components.

/// How the triangles of an indexed mesh connect. Produced by [`topology`].
///
/// Edges are undirected vertex-index pairs `{a, b}` of the *valid* triangles: those whose three
/// indices are in range and distinct. Degenerate triangles (a repeated index) and triangles with
/// an out-of-range index are counted but take no part in the edge counts. Connectivity is by
/// vertex index only: two vertices at the same position with different indices are different.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopologyReport {
    /// Number of triangles given, whatever their state.
    pub triangle_count: usize,
    /// The vertex count given.
    pub vertex_count: usize,
    /// Vertices (indices below `vertex_count`) that no in-range triangle uses.
    pub unused_vertices: usize,
    /// Number of distinct undirected edges of the valid triangles.
    pub edge_count: usize,
    /// Edges used by exactly one valid triangle.
    pub boundary_edges: usize,
    /// Edges used by more than two valid triangles.
    pub non_manifold_edges: usize,
    /// Triangles with a repeated index (`[a, a, b]`); zero area by coordinates is not checked.
    pub degenerate_triangles: usize,
    /// Triangles with an index `>= vertex_count` (also counted in `degenerate_triangles` if they
    /// repeat an index).
    pub out_of_range_triangles: usize,
    /// Connected components of the in-range triangles, where triangles sharing a vertex index
    /// are connected (degenerate triangles included). Unused vertices form no component.
    pub components: usize,
    /// Every edge is used by exactly two valid triangles, there is at least one valid triangle,
    /// and no triangle has an out-of-range index. Says nothing about orientation or about
    /// vertices where two sheets touch at a single point.
    pub closed: bool,
    /// Edges used by exactly two valid triangles that both traverse them in the same direction
    /// (`a → b` in both), i.e. where the neighbouring windings disagree. Zero for a consistently
    /// oriented mesh; edges used by more than two triangles are not judged.
    pub inconsistent_orientation_edges: usize,
}

/// Computes the [`TopologyReport`] of `triangles` indexing `vertex_count` vertices.
///
/// Any input is accepted (out-of-range and repeated indices are counted, see the report's
/// fields); an empty slice gives zero counts and `closed == false`.
///
/// Cost: one sort of the `3 · triangles.len()` directed edges packed into integer keys, plus a
/// union-find over the vertices; memory is linear in the number of triangles (when
/// `vertex_count` is much larger than three times the number of triangles, the used vertex
/// indices are compacted first, so a huge `vertex_count` costs nothing).
pub fn topology(triangles: &[[u32; 3]], vertex_count: usize) -> TopologyReport {
    let in_range = |t: &&[u32; 3]| t.iter().all(|&i| (i as usize) < vertex_count);
    let valid_in_range = triangles.iter().filter(in_range).count();
    let mut report = TopologyReport {
        triangle_count: triangles.len(),
        vertex_count,
        out_of_range_triangles: triangles.len() - valid_in_range,
        degenerate_triangles: triangles.iter().filter(|t| is_degenerate(t)).count(),
        ..TopologyReport::default()
    };

    let links = if vertex_count <= 3 * valid_in_range + 64 {
        analyse(triangles.iter().filter(in_range).copied(), vertex_count)
    } else {
        // Sparse indices: renumber the used vertices 0..used.len() so that memory follows the
        // triangle count, not `vertex_count`.
        let mut used: Vec<u32> = triangles.iter().filter(in_range).flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        let id = |i: u32| used.binary_search(&i).unwrap_or_default() as u32;
        let renumbered = triangles.iter().filter(in_range).map(|t| t.map(id));
        let mut links = analyse(renumbered, used.len());
        links.unused_vertices += vertex_count - used.len();
        links
    };

    report.unused_vertices = links.unused_vertices;
    report.edge_count = links.edge_count;
    report.boundary_edges = links.boundary_edges;
    report.non_manifold_edges = links.non_manifold_edges;
    report.components = links.components;
    report.inconsistent_orientation_edges = links.inconsistent_orientation_edges;
    report.closed = report.edge_count > 0
        && report.boundary_edges == 0
        && report.non_manifold_edges == 0
        && report.out_of_range_triangles == 0;
    report
}

fn is_degenerate(t: &[u32; 3]) -> bool {
    t[0] == t[1] || t[1] == t[2] || t[0] == t[2]
}

/// The index-connectivity part of the report.
#[derive(Default)]
struct Links {
    unused_vertices: usize,
    edge_count: usize,
    boundary_edges: usize,
    non_manifold_edges: usize,
    components: usize,
    inconsistent_orientation_edges: usize,
}

/// Analyses in-range triangles over vertex ids `0..ids`.
fn analyse(triangles: impl Iterator<Item = [u32; 3]> + Clone, ids: usize) -> Links {
    let mut links = if ids <= 1 << 31 {
        edge_links::<u64>(triangles.clone())
    } else {
        edge_links::<u128>(triangles.clone())
    };

    // Components: union-find over vertex ids (path halving, union by size).
    let mut parent: Vec<u32> = (0..ids).map(|i| i as u32).collect();
    let mut size = vec![1u32; ids];
    let mut used = vec![false; ids];
    for [a, b, c] in triangles {
        used[a as usize] = true;
        used[b as usize] = true;
        used[c as usize] = true;
        union(&mut parent, &mut size, a, b);
        union(&mut parent, &mut size, a, c);
    }
    for (i, &u) in used.iter().enumerate() {
        if !u {
            links.unused_vertices += 1;
        } else if parent[i] as usize == i {
            links.components += 1;
        }
    }
    links
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let grand = parent[parent[x as usize] as usize];
        parent[x as usize] = grand;
        x = grand;
    }
    x
}

fn union(parent: &mut [u32], size: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra == rb {
        return;
    }
    let (big, small) = if size[ra as usize] >= size[rb as usize] { (ra, rb) } else { (rb, ra) };
    parent[small as usize] = big;
    size[big as usize] += size[small as usize];
}

/// A directed edge packed so that sorting groups the two directions of one undirected edge
/// together: `lo`, then `hi`, then one direction bit (set when traversed `lo → hi`).
trait EdgeKey: Copy + Ord {
    fn new(from: u32, to: u32) -> Self;
    /// The key with the direction bit cleared: equal for both directions of an edge.
    fn undirected(self) -> Self;
    fn forward(self) -> bool;
}

/// Packing for vertex ids below 2^31: `lo << 32 | hi << 1 | dir` fits 64 bits.
impl EdgeKey for u64 {
    fn new(from: u32, to: u32) -> Self {
        let (lo, hi) = if from < to { (from, to) } else { (to, from) };
        (u64::from(lo) << 32) | (u64::from(hi) << 1) | u64::from(from < to)
    }
    fn undirected(self) -> Self {
        self & !1
    }
    fn forward(self) -> bool {
        self & 1 == 1
    }
}

/// Packing for any `u32` ids.
impl EdgeKey for u128 {
    fn new(from: u32, to: u32) -> Self {
        let (lo, hi) = if from < to { (from, to) } else { (to, from) };
        (u128::from(lo) << 64) | (u128::from(hi) << 1) | u128::from(from < to)
    }
    fn undirected(self) -> Self {
        self & !1
    }
    fn forward(self) -> bool {
        self & 1 == 1
    }
}

/// Edge counts of the non-degenerate triangles: sort the directed edges, then walk the runs of
/// equal undirected keys, counting uses and forward traversals of each.
fn edge_links<K: EdgeKey>(triangles: impl Iterator<Item = [u32; 3]>) -> Links {
    let mut keys: Vec<K> = Vec::with_capacity(3 * triangles.size_hint().0);
    for t in triangles.filter(|t| !is_degenerate(t)) {
        keys.extend([K::new(t[0], t[1]), K::new(t[1], t[2]), K::new(t[2], t[0])]);
    }
    keys.sort_unstable();

    let mut links = Links::default();
    let mut i = 0;
    while i < keys.len() {
        let edge = keys[i].undirected();
        let (mut uses, mut forward) = (0usize, 0usize);
        while i < keys.len() && keys[i].undirected() == edge {
            uses += 1;
            forward += usize::from(keys[i].forward());
            i += 1;
        }
        links.edge_count += 1;
        match uses {
            1 => links.boundary_edges += 1,
            2 if forward != 1 => links.inconsistent_orientation_edges += 1,
            2 => {}
            _ => links.non_manifold_edges += 1,
        }
    }
    links
}

#[cfg(test)]
mod tests {
    use super::*;

    const TETRA: [[u32; 3]; 4] = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]];

    #[test]
    fn tetrahedron_is_closed_and_consistent() {
        let r = topology(&TETRA, 4);
        assert_eq!(r.triangle_count, 4);
        assert_eq!(r.edge_count, 6);
        assert_eq!(r.boundary_edges, 0);
        assert_eq!(r.non_manifold_edges, 0);
        assert_eq!(r.components, 1);
        assert_eq!(r.inconsistent_orientation_edges, 0);
        assert_eq!(r.unused_vertices, 0);
        assert!(r.closed);
    }

    #[test]
    fn empty_input() {
        let r = topology(&[], 0);
        assert_eq!(r, TopologyReport::default());
        assert!(!r.closed);
        let r = topology(&[], 5);
        assert_eq!((r.unused_vertices, r.components, r.closed), (5, 0, false));
    }

    #[test]
    fn single_triangle_is_open() {
        let r = topology(&[[0, 1, 2]], 3);
        assert_eq!((r.edge_count, r.boundary_edges, r.components, r.closed), (3, 3, 1, false));
    }

    #[test]
    fn degenerate_and_out_of_range_triangles() {
        let mut tris = TETRA.to_vec();
        tris.push([0, 0, 1]); // degenerate, ignored for edges
        let r = topology(&tris, 4);
        assert_eq!(r.degenerate_triangles, 1);
        assert!(r.closed);
        tris.push([0, 1, 9]); // out of range
        let r = topology(&tris, 4);
        assert_eq!(r.out_of_range_triangles, 1);
        assert_eq!(r.edge_count, 6);
        assert!(!r.closed);
        let r = topology(&[[7, 7, 7]], 3);
        assert_eq!((r.degenerate_triangles, r.out_of_range_triangles, r.edge_count), (1, 1, 0));
        // Only degenerate triangles: one component, no edges, not closed.
        let r = topology(&[[0, 0, 1]], 2);
        assert_eq!((r.components, r.edge_count, r.closed), (1, 0, false));
    }

    #[test]
    fn huge_vertex_count_is_compacted() {
        let shift = u32::MAX - 10;
        let tris: Vec<[u32; 3]> = TETRA.iter().map(|t| t.map(|i| i + shift)).collect();
        let r = topology(&tris, 1 << 40);
        assert!(r.closed);
        assert_eq!(r.components, 1);
        assert_eq!(r.unused_vertices, (1 << 40) - 4);
        let r = topology(&[[0, 1, u32::MAX]], usize::MAX);
        assert_eq!((r.edge_count, r.boundary_edges, r.components), (3, 3, 1));
    }

    #[test]
    fn wide_keys_agree_with_narrow_keys() {
        // {5,6,7} twice with the same winding: each of its edges is traversed twice the same way.
        let tris = [[0, 1, 2], [2, 1, 3], [1, 0, 3], [0, 1, 4], [5, 6, 7], [6, 7, 5]];
        let narrow = edge_links::<u64>(tris.iter().copied());
        let wide = edge_links::<u128>(tris.iter().copied());
        for l in [&narrow, &wide] {
            assert_eq!(l.edge_count, 11);
            assert_eq!(l.non_manifold_edges, 1); // {0,1} used three times
            assert_eq!(l.boundary_edges, 5); // {0,2}, {2,3}, {0,3}, {1,4}, {0,4}
            assert_eq!(l.inconsistent_orientation_edges, 3); // {5,6}, {6,7}, {5,7}
        }
    }

    #[test]
    fn keys_for_the_largest_ids() {
        let k = <u64 as EdgeKey>::new((1 << 31) - 1, (1 << 31) - 2);
        assert!(!k.forward());
        assert_eq!(k.undirected(), <u64 as EdgeKey>::new((1 << 31) - 2, (1 << 31) - 1).undirected());
        let k = <u128 as EdgeKey>::new(u32::MAX - 1, u32::MAX);
        assert!(k.forward());
        assert_ne!(k.undirected(), <u128 as EdgeKey>::new(u32::MAX - 2, u32::MAX).undirected());
    }
}
