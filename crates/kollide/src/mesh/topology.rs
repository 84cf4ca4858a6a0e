//! Mesh topology: the report (edges, boundary, non-manifold edges, orientation, connected
//! components, and for a built mesh its self-intersections), and the edge adjacency and components that [`TriMesh`](super::TriMesh) caches.

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
    /// Pairs of triangles that meet other than in the vertices (and the edge) they share, by
    /// [`triangles_self_intersect`](super::triangles_self_intersect): where the surface passes
    /// through itself. This needs the vertex positions: `Some` in the report of a mesh
    /// ([`TriMesh::topology`](super::TriMesh::topology)), `None` from [`topology`], which sees
    /// indices only.
    pub self_intersecting_pairs: Option<usize>,
}

/// Computes the [`TopologyReport`] of `triangles` indexing `vertex_count` vertices, without
/// self-intersections (`self_intersecting_pairs` is `None`: that needs positions).
///
/// Any input is accepted (out-of-range and repeated indices are counted, see the report's
/// fields); an empty slice gives zero counts and `closed == false`.
///
/// Cost: the edge adjacency of the in-range triangles (one sort of their `3 · triangles.len()`
/// directed edges) and a union-find over the vertices; memory is linear in the number of triangles (when `vertex_count` is much larger than three
/// times the number of triangles, the used vertex indices are compacted first, so a huge
/// `vertex_count` costs nothing). The first 2³⁰ − 1 in-range triangles are counted (more would
/// not fit in memory beside their sorted edges).
pub fn topology(triangles: &[[u32; 3]], vertex_count: usize) -> TopologyReport {
    let in_range = |t: &&[u32; 3]| t.iter().all(|&i| (i as usize) < vertex_count);
    let mut kept: Vec<[u32; 3]> = triangles.iter().filter(in_range).take(MAX_TRIANGLES).copied().collect();
    let out_of_range_triangles = triangles.iter().filter(|t| !in_range(t)).count();
    let mut ids = vertex_count;
    if vertex_count > 3 * kept.len() + 64 {
        // Sparse indices: renumber the used vertices 0..used.len() in their order, so that memory
        // follows the triangle count, not `vertex_count`.
        let mut used: Vec<u32> = kept.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        for t in &mut kept {
            *t = t.map(|i| used.binary_search(&i).unwrap_or_default() as u32);
        }
        ids = used.len();
    }
    let mut report = mesh_report(&kept, ids, &edge_neighbors(&kept), component_seeds(&kept, ids).len());
    report.triangle_count = triangles.len();
    report.vertex_count = vertex_count;
    report.unused_vertices += vertex_count - ids;
    report.out_of_range_triangles = out_of_range_triangles;
    report.degenerate_triangles = triangles.iter().filter(|t| is_degenerate(t)).count();
    report.closed &= out_of_range_triangles == 0;
    report
}

/// The report of the in-range `triangles` over vertex ids `0..vertex_count` from their edge
/// adjacency and component count (what a [`TriMesh`](super::TriMesh) caches).
pub(crate) fn mesh_report(
    triangles: &[[u32; 3]],
    vertex_count: usize,
    neighbors: &[[EdgeNeighbor; 3]],
    components: usize,
) -> TopologyReport {
    let mut used = vec![false; vertex_count];
    for &i in triangles.iter().flatten() {
        used[i as usize] = true;
    }
    let mut report = TopologyReport {
        triangle_count: triangles.len(),
        vertex_count,
        unused_vertices: used.iter().filter(|&&u| !u).count(),
        degenerate_triangles: triangles.iter().filter(|t| is_degenerate(t)).count(),
        components,
        ..TopologyReport::default()
    };
    // Each edge of two triangles is counted from the first of its two sides; the edges of three
    // or more triangles by their keys, once each.
    let mut crowded = Vec::new();
    for (k, (t, across)) in triangles.iter().zip(neighbors).enumerate() {
        for (e, n) in across.iter().enumerate() {
            let (from, to) = (t[e], t[(e + 1) % 3]);
            match n.kind() {
                EdgeKind::Shared { triangle, edge } => {
                    if (k as u32, e) < (triangle, edge) {
                        report.edge_count += 1;
                        // Consistent windings traverse the edge in opposite directions.
                        let other = triangles[triangle as usize][edge];
                        report.inconsistent_orientation_edges += usize::from(other == from);
                    }
                }
                EdgeKind::Boundary => {
                    report.edge_count += 1;
                    report.boundary_edges += 1;
                }
                EdgeKind::NonManifold => crowded.push(edge_key(from, to)),
                EdgeKind::Degenerate => {}
            }
        }
    }
    crowded.sort_unstable();
    crowded.dedup();
    report.non_manifold_edges = crowded.len();
    report.edge_count += crowded.len();
    report.closed = report.edge_count > 0 && report.boundary_edges == 0 && report.non_manifold_edges == 0;
    report
}

fn is_degenerate(t: &[u32; 3]) -> bool {
    t[0] == t[1] || t[1] == t[2] || t[0] == t[2]
}

/// The undirected edge `{a, b}` as one integer: the smaller index in the high half.
#[inline]
fn edge_key(a: u32, b: u32) -> u64 {
    (u64::from(a.min(b)) << 32) | u64::from(a.max(b))
}

/// The most triangles an edge adjacency indexes: [`EdgeNeighbor`] packs a triangle index in 30
/// bits. A [`TriMesh`](super::TriMesh) holds fewer
/// ([`MAX_PRIMITIVES`](crate::bvh::MAX_PRIMITIVES)).
const MAX_TRIANGLES: usize = (1 << 30) - 1;

/// What lies across one edge of a triangle (from corner `i` to corner `i + 1`), packed in 32 bits:
/// the triangle across and its index of the shared edge as `triangle << 2 | edge`, or a marker
/// whose low two bits are both set (no edge index is 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgeNeighbor(u32);

/// [`EdgeNeighbor`] unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EdgeKind {
    /// Exactly one other triangle uses the edge (in either direction): `triangle`, whose edge
    /// `edge` (from its corner `edge` to the next) it is.
    Shared { triangle: u32, edge: usize },
    /// No other triangle uses the edge.
    Boundary,
    /// Two or more other triangles use the edge.
    NonManifold,
    /// The triangle is degenerate (a repeated index): it has no edges, and no neighbour sees it.
    Degenerate,
}

impl EdgeNeighbor {
    const BOUNDARY: EdgeNeighbor = EdgeNeighbor(u32::MAX);
    const NON_MANIFOLD: EdgeNeighbor = EdgeNeighbor(u32::MAX - 4);
    const DEGENERATE: EdgeNeighbor = EdgeNeighbor(u32::MAX - 8);

    /// The triangle across and its index of the shared edge, if exactly one triangle is across.
    #[inline]
    pub(crate) fn shared(self) -> Option<(u32, usize)> {
        (self.0 & 3 != 3).then_some((self.0 >> 2, (self.0 & 3) as usize))
    }

    pub(crate) fn kind(self) -> EdgeKind {
        match self {
            EdgeNeighbor::BOUNDARY => EdgeKind::Boundary,
            EdgeNeighbor::NON_MANIFOLD => EdgeKind::NonManifold,
            EdgeNeighbor::DEGENERATE => EdgeKind::Degenerate,
            EdgeNeighbor(code) => EdgeKind::Shared { triangle: code >> 2, edge: (code & 3) as usize },
        }
    }
}

/// Per triangle, per edge `i` (corner `i` to corner `i + 1`): what lies across, by vertex index
/// (see [`EdgeKind`]). Edges are those of the non-degenerate triangles, matched whatever their
/// direction. Only the first [`MAX_TRIANGLES`] triangles get an entry.
///
/// One sort of the `3 · triangles.len()` directed edges by their undirected key; the triangles
/// of one key are then adjacent.
pub(crate) fn edge_neighbors(triangles: &[[u32; 3]]) -> Vec<[EdgeNeighbor; 3]> {
    let triangles = &triangles[..triangles.len().min(MAX_TRIANGLES)];
    // (undirected key, triangle << 2 | edge)
    let mut edges: Vec<(u64, u32)> = Vec::with_capacity(3 * triangles.len());
    for (k, t) in triangles.iter().enumerate() {
        if !is_degenerate(t) {
            for e in 0..3 {
                edges.push((edge_key(t[e], t[(e + 1) % 3]), (k as u32) << 2 | e as u32));
            }
        }
    }
    edges.sort_unstable();
    let mut neighbors = vec![[EdgeNeighbor::DEGENERATE; 3]; triangles.len()];
    let mut set = |side: u32, to: EdgeNeighbor| neighbors[(side >> 2) as usize][(side & 3) as usize] = to;
    for run in edges.chunk_by(|x, y| x.0 == y.0) {
        match *run {
            [(_, x)] => set(x, EdgeNeighbor::BOUNDARY),
            [(_, x), (_, y)] => {
                set(x, EdgeNeighbor(y));
                set(y, EdgeNeighbor(x));
            }
            _ => run.iter().for_each(|&(_, x)| set(x, EdgeNeighbor::NON_MANIFOLD)),
        }
    }
    neighbors
}

/// One vertex index per connected component of `triangles`, where triangles sharing a vertex
/// index are connected (degenerate ones included): the first vertex of the component's first
/// triangle, in the order of those triangles. Every index must be below `vertex_count`.
///
/// A union-find over the vertices (path halving, union by size), then one pass for the roots.
pub(crate) fn component_seeds(triangles: &[[u32; 3]], vertex_count: usize) -> Vec<u32> {
    let mut sets = UnionFind::new(vertex_count);
    for t in triangles {
        sets.union(t[0], t[1]);
        sets.union(t[0], t[2]);
    }
    let mut seen = vec![false; vertex_count];
    let mut seeds = Vec::new();
    for t in triangles {
        let root = sets.find(t[0]) as usize;
        if !seen[root] {
            seen[root] = true;
            seeds.push(t[0]);
        }
    }
    seeds
}

/// Disjoint sets over `0..n` (union-find with path halving and union by size).
pub(crate) struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    pub(crate) fn new(n: usize) -> Self {
        UnionFind { parent: (0..n as u32).collect(), size: vec![1; n] }
    }

    /// The representative of `x`'s set.
    pub(crate) fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// Merges the sets of `a` and `b`.
    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (big, small) = if self.size[ra as usize] >= self.size[rb as usize] { (ra, rb) } else { (rb, ra) };
        self.parent[small as usize] = big;
        self.size[big as usize] += self.size[small as usize];
    }
}

/// An edge is active when its two triangles' normals differ by more than this angle (radians)
/// and the surface is convex across it (see [`TriMesh::is_edge_active`](super::TriMesh)).
pub const ACTIVE_EDGE_ANGLE: f32 = 0.05;

/// Per triangle id, bit `i` set = edge `i` (from corner `i` to corner `i + 1`) is active: a real
/// convex crease of the surface (normals apart by more than [`ACTIVE_EDGE_ANGLE`]), or an edge
/// without exactly one neighbour (boundary, non-manifold, degenerate). Each shared edge is decided
/// once, from the triangle with the lower id, and the answer given to both.
pub(crate) fn active_edges(
    vertices: &[glam::Vec3],
    triangles: &[[u32; 3]],
    neighbors: &[[EdgeNeighbor; 3]],
) -> Vec<u8> {
    let normal = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        (b - a).cross(c - a).normalize_or_zero()
    };
    let cos_limit = ACTIVE_EDGE_ANGLE.cos();
    let mut active = vec![0b111u8; triangles.len()];
    for (t, edges) in neighbors.iter().enumerate() {
        for (i, neighbor) in edges.iter().enumerate() {
            let Some((u, j)) = neighbor.shared() else { continue };
            if (u as usize) < t {
                continue;
            }
            let (tt, tu) = (&triangles[t], &triangles[u as usize]);
            let (nt, nu) = (normal(tt), normal(tu));
            // The corner of u off the shared edge: below t's plane means convex across the edge.
            let off = vertices[tu[(j + 2) % 3] as usize] - vertices[tt[i] as usize];
            let convex = nt.dot(off) < 0.0;
            if !(convex && nt.dot(nu) < cos_limit) {
                active[t] &= !(1 << i);
                active[u as usize] &= !(1 << j);
            }
        }
    }
    active
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
    fn counts_of_mixed_edges() {
        // {5,6,7} twice with the same winding: each of its edges is traversed twice the same way.
        let tris = [[0, 1, 2], [2, 1, 3], [1, 0, 3], [0, 1, 4], [5, 6, 7], [6, 7, 5]];
        let r = topology(&tris, 8);
        assert_eq!(r.edge_count, 11);
        assert_eq!(r.non_manifold_edges, 1); // {0,1} used three times
        assert_eq!(r.boundary_edges, 5); // {0,2}, {2,3}, {0,3}, {1,4}, {0,4}
        assert_eq!(r.inconsistent_orientation_edges, 3); // {5,6}, {6,7}, {5,7}
    }

    #[test]
    fn neighbors_link_both_sides_of_each_shared_edge() {
        let top = u32::MAX;
        for tris in [TETRA.to_vec(), vec![[top - 2, top - 1, top], [top - 1, top - 2, 0], [0, 0, top]]] {
            let neighbors = edge_neighbors(&tris);
            for (k, t) in tris.iter().enumerate() {
                for e in 0..3 {
                    let Some((u, f)) = neighbors[k][e].shared() else { continue };
                    assert_eq!(neighbors[u as usize][f].shared(), Some((k as u32, e)));
                    let edge = |t: &[u32; 3], e: usize| edge_key(t[e], t[(e + 1) % 3]);
                    assert_eq!(edge(t, e), edge(&tris[u as usize], f));
                }
            }
        }
        // The tetrahedron's edges are all shared; a degenerate triangle has no edges and its
        // neighbour sees none across.
        let neighbors = edge_neighbors(&TETRA);
        assert!(neighbors.iter().flatten().all(|n| n.shared().is_some()));
        let neighbors = edge_neighbors(&[[0, 1, 2], [1, 0, 0]]);
        assert_eq!(neighbors[1].map(EdgeNeighbor::kind), [EdgeKind::Degenerate; 3]);
        assert_eq!(neighbors[0].map(EdgeNeighbor::kind), [EdgeKind::Boundary; 3]);
    }

    #[test]
    fn component_seeds_take_the_first_vertex_of_each_component() {
        let tris = [[4, 5, 6], [0, 1, 2], [2, 3, 0], [6, 7, 7]];
        assert_eq!(component_seeds(&tris, 9), vec![4, 0]);
        assert_eq!(topology(&tris, 9).components, 2);
    }
}
