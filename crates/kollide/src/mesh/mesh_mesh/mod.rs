//! Mesh against mesh under a relative affine map, without rebuilding either mesh: overlap (with
//! solid semantics for closed meshes), all intersecting triangle pairs, contact manifolds
//! ([`MeshContact`], method in `contacts`), and distance.
//!
//! # Method
//!
//! Both BVHs are descended together from their roots, depth first with a fixed-size stack. A
//! pair of nodes (one of A, one of B) is kept when the two boxes may overlap in A's mesh space,
//! where B's triangles are placed by the relative map `M` (B's mesh space to A's). At each step
//! the node with the larger box (measured in A's space) is opened and its four children are
//! tested at once against the other node's box by a separating-axis test on six axes, in SIMD
//! over the four lanes:
//!
//! - A's three coordinate axes: the box of B's node mapped by `M` is the parallelepiped
//!   `M c + t ± M h`, whose extent along coordinate `i` is `Σ_j |M_ij| h_j` (Arvo's box of a box);
//!   it is compared with A's box.
//! - The three face normals of that parallelepiped, the rows of `M⁻¹`: seen through `M⁻¹`, the
//!   parallelepiped is B's box again and A's box becomes a parallelepiped, so this is the same
//!   test with the roles swapped.
//!
//! The nine edge-edge axes of the full box-box SAT are left out: they cost more than they cull
//! here (the six axes already remove rotated boxes whose corners poke past each other's faces).
//! Leaving axes out only keeps more pairs, so the culling stays conservative.
//!
//! At a pair of leaves, B's triangles are mapped into A's space once per B leaf (kept while the
//! descent stays on that leaf), pre-filtered four A triangles at a time by their boxes, and
//! decided by the exact triangle/triangle test ([`test_triangle_triangle`]).
//!
//! # Numbers
//!
//! B's triangles are mapped into A's space in `f32` ([`Affine3A::transform_point3`]), which
//! rounds each coordinate by a few ulps of its magnitude. The answers are exact for those rounded
//! triangles: two meshes that touch or miss by less than about `1e-6` of their coordinates'
//! magnitude may be reported either way, and the answer may differ from the one with the roles
//! of A and B swapped. The node tests are widened by a bound of all rounding (their own and the
//! mapping's, including the error of `M⁻¹`), so they never cull a pair the exact test would
//! accept.
//!
//! # Solids and surfaces
//!
//! A closed, consistently oriented mesh ([`TriMesh::is_solid`]) is a solid: it also contains its
//! inside. When no triangles intersect, a connected component of one mesh lies entirely inside or
//! entirely outside the other, so one vertex per component decides it
//! ([`TriMesh::contains_point`]); a component inside a solid makes the pair intersect. Open
//! meshes are surfaces: only their triangles count, and nothing is ever inside them.

mod contacts;

pub use contacts::MeshContact;
pub(crate) use contacts::contacts_in_frame;

use super::trimesh::TriMesh;
use crate::bounds::Aabb3;
use crate::bvh::{Bvh3, Child, Node4};
use crate::primitive::{
    TriangleIntersection, closest_point_triangle, closest_points_segment_segment,
    intersect_triangle_triangle, test_triangle_triangle,
};
use glam::{Affine3A, DMat3, DVec3, Mat3, Vec3, Vec4};
use std::mem::MaybeUninit;

/// Caller-owned memory of one pair of meshes between queries (temporal coherence).
///
/// An overlap query first re-checks what proved the last overlap: the intersecting triangle
/// pair, or the vertex found inside the other solid. After a small motion this usually still
/// holds and the query costs one triangle test (or one inside test) instead of a descent. A
/// stale or foreign cache (from another pair of meshes) is harmless: it is only ever a candidate,
/// re-checked exactly, and a failed check falls back to the full query. A miss leaves the cache
/// empty: no single node pair proves that two concave meshes are apart, so the next query
/// descends in full (on `meshmesh/torus80k/near-miss`, about 10 µs for two 80k-triangle tori).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeshMeshCache {
    witness: Witness,
}

/// What proved an overlap. Triangles are leaf slots (the order of the meshes' BVH leaves), so a
/// re-check reads them directly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Witness {
    #[default]
    None,
    Triangles {
        a: u32,
        b: u32,
    },
    /// Vertex `index` of B lies inside solid A.
    BVertexInA(u32),
    /// Vertex `index` of A lies inside solid B.
    AVertexInB(u32),
}

impl MeshMeshCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the last witness.
    pub fn clear(&mut self) {
        self.witness = Witness::None;
    }

    /// True if the cache holds a witness of the last overlap.
    pub fn has_witness(&self) -> bool {
        self.witness != Witness::None
    }
}

/// How two meshes overlap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MeshOverlap {
    /// Triangle `a` of A and triangle `b` of B (ids, indices into [`TriMesh::triangles`])
    /// intersect: one witness, not all pairs.
    Triangles { a: u32, b: u32 },
    /// A (a component of it) lies inside solid B, and no triangles intersect (unless the
    /// witness came from a cache: a vertex of A still inside B is reported without looking for
    /// crossing triangles). `depth` estimates the penetration: the distance from the tested
    /// vertex of A to B's surface (see [`TriMesh::mesh_overlap`] for the frame).
    AInsideB { depth: f32 },
    /// B (a component of it) lies inside solid A; otherwise as [`MeshOverlap::AInsideB`], from a
    /// vertex of B to A's surface.
    BInsideA { depth: f32 },
}

/// The closest points of two meshes' surfaces.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshDistance {
    /// Distance between the surfaces, `>= 0` (zero when triangles touch or cross).
    pub distance: f32,
    /// The closest point on A.
    pub point_a: Vec3,
    /// The closest point on B.
    pub point_b: Vec3,
    /// The triangle (id) of A that `point_a` lies on.
    pub triangle_a: u32,
    /// The triangle (id) of B that `point_b` lies on.
    pub triangle_b: u32,
}

impl TriMesh {
    /// True if this mesh (A) and `other` (B), placed in A's space by `other_in_self` (B's mesh
    /// space to A's), intersect: some triangles touch, or one lies inside the other where that
    /// other is solid (see the [module documentation](self) for solids, surfaces and rounding).
    ///
    /// Stops at the first intersecting triangle pair found. With a `cache`, first re-checks the
    /// last witness and stores the new one (cleared on a miss); the answer is the same with or
    /// without a cache, only the witness of [`TriMesh::mesh_overlap`] may differ. A *bad map*
    /// gives `false` (the cache is left as it was): a non-finite or singular `other_in_self`, or one
    /// that carries B's coordinates beyond `f32` range (rounding bounds overflow).
    /// Allocation-free.
    pub fn intersects_mesh(
        &self,
        other: &TriMesh,
        other_in_self: &Affine3A,
        cache: Option<&mut MeshMeshCache>,
    ) -> bool {
        let Some(rel) = Relative::new(self, other, other_in_self) else { return false };
        find_overlap(self, other, &rel, cache).is_some()
    }

    /// How A and B overlap, or `None` if they do not; same rules, cache and bad-input answer as
    /// [`TriMesh::intersects_mesh`].
    ///
    /// The containment depth is measured in A's mesh space: from the tested vertex to the closest
    /// point of the containing surface found in that surface's own mesh space (mapped into A's).
    /// It is the exact distance from that vertex to the surface when the relative map is a
    /// similarity, otherwise an upper bound of it; either way it is an estimate of the
    /// penetration, which would need the deepest vertex, not just one.
    pub fn mesh_overlap(
        &self,
        other: &TriMesh,
        other_in_self: &Affine3A,
        cache: Option<&mut MeshMeshCache>,
    ) -> Option<MeshOverlap> {
        let rel = Relative::new(self, other, other_in_self)?;
        overlap_in_frame(self, other, &rel, cache, &Affine3A::IDENTITY)
    }

    /// Appends every intersecting pair `(triangle of A, triangle of B)` (ids) to `out`, in no
    /// particular order. Surfaces only: containment adds no pairs. Appends nothing for a bad
    /// map (see [`TriMesh::intersects_mesh`]).
    pub fn intersecting_triangles(
        &self,
        other: &TriMesh,
        other_in_self: &Affine3A,
        out: &mut Vec<(u32, u32)>,
    ) {
        let Some(rel) = Relative::new(self, other, other_in_self) else { return };
        descend(self, other, &rel, |ka, kb| {
            out.push((self.slot_id(ka), other.slot_id(kb)));
            true
        });
    }

    /// The closest points of A's and B's surfaces, measured in A's mesh space, if they are at
    /// most `max_distance` apart (`f32::INFINITY` for no limit); `None` otherwise, and for a
    /// bad map (see [`TriMesh::intersects_mesh`]) or a NaN or negative `max_distance`.
    ///
    /// This is the distance between the surfaces: a mesh inside a solid other one is at a
    /// positive distance from it although the solids overlap ([`TriMesh::mesh_overlap`] tells).
    /// Computed in `f32` on the mapped triangles: relative error of a few ulps of the
    /// coordinates' magnitude.
    pub fn mesh_distance(
        &self,
        other: &TriMesh,
        other_in_self: &Affine3A,
        max_distance: f32,
    ) -> Option<MeshDistance> {
        Relative::new(self, other, other_in_self)?;
        distance_in_frame(self, &Affine3A::IDENTITY, other, other_in_self, max_distance)
    }
}

/// Overlap with the containment depth measured after mapping A's space by `frame`.
pub(crate) fn overlap_in_frame(
    a: &TriMesh,
    b: &TriMesh,
    rel: &Relative,
    cache: Option<&mut MeshMeshCache>,
    frame: &Affine3A,
) -> Option<MeshOverlap> {
    Some(match find_overlap(a, b, rel, cache)? {
        Witness::Triangles { a: ka, b: kb } => MeshOverlap::Triangles { a: a.slot_id(ka), b: b.slot_id(kb) },
        Witness::BVertexInA(v) => {
            let p = rel.to_a.transform_point3(b.vertices()[v as usize]);
            let q = a.closest_point(p, f32::INFINITY).map_or(p, |c| c.point);
            MeshOverlap::BInsideA { depth: frame.transform_point3(p).distance(frame.transform_point3(q)) }
        }
        Witness::AVertexInB(u) => {
            let p = a.vertices()[u as usize];
            let in_b = rel.to_b.transform_point3(p);
            let q = b.closest_point(in_b, f32::INFINITY).map_or(p, |c| rel.to_a.transform_point3(c.point));
            MeshOverlap::AInsideB { depth: frame.transform_point3(p).distance(frame.transform_point3(q)) }
        }
        Witness::None => return None,
    })
}

/// The overlap witness: the cached one if it still holds, else the first intersecting triangle
/// pair of the descent, else a vertex inside the other solid. Updates the cache.
fn find_overlap(
    a: &TriMesh,
    b: &TriMesh,
    rel: &Relative,
    cache: Option<&mut MeshMeshCache>,
) -> Option<Witness> {
    let cached = cache.as_ref().map_or(Witness::None, |c| c.witness);
    let witness = if recheck(a, b, rel, cached) {
        cached
    } else {
        let mut found = Witness::None;
        descend(a, b, rel, |ka, kb| {
            found = Witness::Triangles { a: ka, b: kb };
            false
        });
        if found == Witness::None {
            found = containment(a, b, rel);
        }
        found
    };
    if let Some(cache) = cache {
        cache.witness = witness;
    }
    (witness != Witness::None).then_some(witness)
}

/// True if `witness` (from an earlier query, possibly on other meshes) proves an overlap now.
fn recheck(a: &TriMesh, b: &TriMesh, rel: &Relative, witness: Witness) -> bool {
    match witness {
        Witness::None => false,
        Witness::Triangles { a: ka, b: kb } => {
            (ka as usize) < a.triangle_count()
                && (kb as usize) < b.triangle_count()
                && test_triangle_triangle(a.slot_corners(ka), &rel.map_b_triangle(b.slot_corners(kb)))
        }
        Witness::BVertexInA(v) => {
            b.vertices().get(v as usize).is_some_and(|&p| inside(a, rel.to_a.transform_point3(p)))
        }
        Witness::AVertexInB(u) => {
            a.vertices().get(u as usize).is_some_and(|&p| inside(b, rel.to_b.transform_point3(p)))
        }
    }
}

/// True if `mesh` is solid and contains `p` (its own space); the box test first.
fn inside(mesh: &TriMesh, p: Vec3) -> bool {
    mesh.bounds().contains_point(p) && mesh.contains_point(p) == Some(true)
}

/// When no triangles intersect: a component of B inside solid A, or of A inside solid B.
fn containment(a: &TriMesh, b: &TriMesh, rel: &Relative) -> Witness {
    if a.is_solid() {
        for &v in b.component_seeds() {
            if inside(a, rel.to_a.transform_point3(b.vertices()[v as usize])) {
                return Witness::BVertexInA(v);
            }
        }
    }
    if b.is_solid() {
        for &u in a.component_seeds() {
            if inside(b, rel.to_b.transform_point3(a.vertices()[u as usize])) {
                return Witness::AVertexInB(u);
            }
        }
    }
    Witness::None
}

/// One vertex index per connected component of `triangles` (triangles sharing a vertex index are
/// connected): union-find over the vertices, then the first vertex of the first triangle of each
/// component.
pub(crate) fn component_seeds(triangles: &[[u32; 3]], vertex_count: usize) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..vertex_count as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up; // path halving
            i = up;
        }
        i
    }
    for t in triangles {
        for &v in &t[1..] {
            let (x, y) = (root(&mut parent, t[0]), root(&mut parent, v));
            if x != y {
                parent[x.max(y) as usize] = x.min(y);
            }
        }
    }
    let mut seen = vec![false; vertex_count];
    let mut seeds = Vec::new();
    for t in triangles {
        let r = root(&mut parent, t[0]) as usize;
        if !seen[r] {
            seen[r] = true;
            seeds.push(t[0]);
        }
    }
    seeds
}

/// An affine map as rows, for the four-lane box tests, with the half-extent growth that covers
/// rounding.
#[derive(Clone, Copy, Debug)]
struct BoxMap {
    rows: [Vec3; 3],
    abs_rows: [Vec3; 3],
    translation: Vec3,
    margin: Vec3,
}

impl BoxMap {
    fn new(map: &Affine3A, margin: Vec3) -> Self {
        let m = Mat3::from(map.matrix3);
        let rows = [m.row(0), m.row(1), m.row(2)];
        Self { rows, abs_rows: rows.map(Vec3::abs), translation: map.translation.into(), margin }
    }

    /// Center and half extents of the box `[lo, hi]` mapped (Arvo), half extents grown by the
    /// margin.
    #[inline(always)]
    fn map_box(&self, lo: Vec3, hi: Vec3) -> (Vec3, Vec3) {
        let (c, h) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
        let center =
            Vec3::new(self.rows[0].dot(c), self.rows[1].dot(c), self.rows[2].dot(c)) + self.translation;
        let half = Vec3::new(self.abs_rows[0].dot(h), self.abs_rows[1].dot(h), self.abs_rows[2].dot(h))
            + self.margin;
        (center, half)
    }

    /// Lanes of `node` whose child box, mapped (Arvo) and grown by the margin, overlaps the
    /// closed box `[lo, hi]`. Empty lanes (`[+∞, +∞]`) give NaN and fail every comparison.
    #[inline(always)]
    fn overlap_lanes(&self, node: &Node4, lo: Vec3, hi: Vec3) -> u32 {
        let b = &node.bounds;
        let c = [(b[0] + b[3]) * 0.5, (b[1] + b[4]) * 0.5, (b[2] + b[5]) * 0.5];
        let h = [(b[3] - b[0]) * 0.5, (b[4] - b[1]) * 0.5, (b[5] - b[2]) * 0.5];
        let (bc, bh) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
        let mut mask = 0xf;
        for axis in 0..3 {
            let (r, a) = (self.rows[axis], self.abs_rows[axis]);
            let center =
                c[0] * r.x + c[1] * r.y + c[2] * r.z + Vec4::splat(self.translation[axis] - bc[axis]);
            let reach = h[0] * a.x + h[1] * a.y + h[2] * a.z + Vec4::splat(self.margin[axis] + bh[axis]);
            mask &= center.abs().cmple(reach).bitmask();
        }
        mask
    }
}

/// The relative placement of B in A, ready for the descent.
pub(crate) struct Relative {
    /// B's mesh space to A's: the map B's triangles are placed by.
    to_a: Affine3A,
    /// A's mesh space to B's (the `f32` inverse, not exact).
    to_b: Affine3A,
    /// `to_a` for node tests; its margin covers the rounding of mapped B points and of the test.
    a_test: BoxMap,
    /// `to_b` for node tests (the parallelepiped's face axes); its margin also covers
    /// `to_b · to_a ≠ identity`.
    b_test: BoxMap,
    /// `Σ_i |M_ij|` per column `j`: the size in A's space of B's box extents (for choosing which
    /// node to open).
    b_size: Vec3,
}

/// Relative rounding allowance of the node tests: about 34 ulps of the magnitudes involved,
/// several times the worst case of the three-term dot products and sums they evaluate.
const ROUNDING: f64 = 4e-6;

impl Relative {
    /// `None` for a bad map: non-finite or singular (the test of [`super::MeshInstance::new`]),
    /// or rounding bounds that overflow `f32`.
    pub(crate) fn new(a: &TriMesh, b: &TriMesh, to_a: &Affine3A) -> Option<Relative> {
        let m = Mat3::from(to_a.matrix3);
        let scale = m.to_cols_array().iter().fold(0.0f32, |s, x| s.max(x.abs()));
        if !to_a.is_finite() || !(m.determinant().abs() > 1e-18 * scale * scale * scale) {
            return None;
        }
        let to_b = to_a.inverse();
        if !to_b.is_finite() {
            return None;
        }
        // Margins in f64 (see `BoxMap`): R_A, R_B bound every coordinate of each mesh.
        let reach = |bounds: Aabb3| bounds.min.abs().max(bounds.max.abs()).as_dvec3();
        let (ra, rb) = (reach(a.bounds()), reach(b.bounds()));
        let md = m.as_dmat3();
        let nd = Mat3::from(to_b.matrix3).as_dmat3();
        let (t, s): (DVec3, DVec3) =
            (Vec3::from(to_a.translation).as_dvec3(), Vec3::from(to_b.translation).as_dvec3());
        let abs = |x: DMat3| DMat3::from_cols(x.x_axis.abs(), x.y_axis.abs(), x.z_axis.abs());
        // A mapped B point `M p + t` is off by at most a few ulps of `|M| |p| + |t|`; the A-space
        // test adds its own rounding on coordinates up to R_A.
        let margin_a = (abs(md) * rb + t.abs() + ra) * ROUNDING;
        // Through `N ≈ M⁻¹`: a point `x = M p + t + e` of B maps to `N x + s = P p + (N t + s) + N e`
        // with `P = N M ≈ I`. So the B-space test widens by `|P - I| R_B + |N t + s| + |N| margin_a`,
        // plus the rounding of mapping A's boxes by `N` (coordinates up to R_A).
        let p_err = abs(nd * md - DMat3::IDENTITY);
        let margin_b =
            p_err * rb + (nd * t + s).abs() + abs(nd) * margin_a + (abs(nd) * ra + s.abs() + rb) * ROUNDING;
        let (margin_a, margin_b) = (margin_a.as_vec3(), margin_b.as_vec3());
        if !margin_a.is_finite() || !margin_b.is_finite() {
            return None;
        }
        let b_size = Vec3::new(
            m.x_axis.abs().element_sum(),
            m.y_axis.abs().element_sum(),
            m.z_axis.abs().element_sum(),
        );
        Some(Relative {
            to_a: *to_a,
            to_b,
            a_test: BoxMap::new(to_a, margin_a),
            b_test: BoxMap::new(&to_b, margin_b),
            b_size,
        })
    }

    /// A triangle of B in A's space, rounded exactly as every query and the reference do.
    #[inline(always)]
    fn map_b_triangle(&self, t: &[Vec3; 3]) -> [Vec3; 3] {
        t.map(|p| self.to_a.transform_point3(p))
    }
}

/// A pair of nodes to visit: each a child code (the root, node 0, is nobody's child and is coded
/// 0) with its box in its own mesh's space.
#[derive(Clone, Copy)]
struct Pair {
    a: u32,
    b: u32,
    a_lo: Vec3,
    a_hi: Vec3,
    b_lo: Vec3,
    b_hi: Vec3,
}

/// Pairs waiting on the descent. Each step pops one pair and pushes at most four, and a path
/// opens at most `Bvh3::MAX_DEPTH` nodes of each tree, so `6 · MAX_DEPTH + 4` slots always
/// suffice (a violation would be an internal bug and stops the program on the bounds check).
const PAIR_STACK: usize = 6 * Bvh3::MAX_DEPTH + 4;

struct PairStack {
    items: [MaybeUninit<Pair>; PAIR_STACK],
    len: usize,
}

impl PairStack {
    #[inline(always)]
    fn new() -> Self {
        Self { items: [const { MaybeUninit::uninit() }; PAIR_STACK], len: 0 }
    }

    #[inline(always)]
    fn push(&mut self, pair: Pair) {
        self.items[self.len].write(pair);
        self.len += 1;
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<Pair> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: every slot below the old `len` was written by `push` (`Pair` is `Copy`).
        Some(unsafe { self.items[self.len].assume_init() })
    }
}

/// Leaf-order range of a leaf code, `None` for an inner node (the root is coded 0).
#[inline(always)]
fn leaf_range(code: u32) -> Option<(u32, u32)> {
    match Child::decode(code) {
        Child::Leaf { first, count } => Some((first, first + count)),
        _ => None,
    }
}

/// Node index of an inner code (0 for the root).
#[inline(always)]
fn node_index(code: u32) -> usize {
    match Child::decode(code) {
        Child::Inner(index) => index as usize,
        _ => 0,
    }
}

/// The most triangles a BVH leaf holds.
const MAX_LEAF: usize = 15;

/// B's current leaf, mapped into A's space, with each triangle's box.
struct MappedLeaf {
    code: u32,
    len: usize,
    tris: [[Vec3; 3]; MAX_LEAF],
    lo: [Vec3; MAX_LEAF],
    hi: [Vec3; MAX_LEAF],
}

/// Calls `hit(slot of A, slot of B)` for every intersecting triangle pair (exact test on B's
/// mapped triangles) until it returns `false`. Returns `false` if stopped.
#[inline]
fn descend(a: &TriMesh, b: &TriMesh, rel: &Relative, mut hit: impl FnMut(u32, u32) -> bool) -> bool {
    let (a_nodes, b_nodes) = (a.bvh().nodes(), b.bvh().nodes());
    let (a_root, b_root) = (a.bounds(), b.bounds());
    let mut stack = PairStack::new();
    stack.push(Pair { a: 0, b: 0, a_lo: a_root.min, a_hi: a_root.max, b_lo: b_root.min, b_hi: b_root.max });
    let mut leaf = MappedLeaf {
        code: 0, // no leaf has code 0
        len: 0,
        tris: [[Vec3::ZERO; 3]; MAX_LEAF],
        lo: [Vec3::ZERO; MAX_LEAF],
        hi: [Vec3::ZERO; MAX_LEAF],
    };
    // The root pair: both boxes tested once on the two sets of axes.
    let (c, h) = rel.a_test.map_box(b_root.min, b_root.max);
    let (ac, ah) = (a_root.center(), a_root.half_extents());
    let (bc, bh) = rel.b_test.map_box(a_root.min, a_root.max);
    if !((c - ac).abs().cmple(h + ah).all()
        && (bc - b_root.center()).abs().cmple(bh + b_root.half_extents()).all())
    {
        return true;
    }
    while let Some(p) = stack.pop() {
        let (a_leaf, b_leaf) = (leaf_range(p.a), leaf_range(p.b));
        if let (Some(ra), Some(rb)) = (a_leaf, b_leaf) {
            if !leaf_pair(a, b, rel, &mut leaf, ra, p.b, rb, &mut hit) {
                return false;
            }
            continue;
        }
        let open_a = b_leaf.is_some()
            || (a_leaf.is_none() && (p.a_hi - p.a_lo).element_sum() >= rel.b_size.dot(p.b_hi - p.b_lo));
        if open_a {
            let node = &a_nodes[node_index(p.a)];
            let (c, h) = rel.a_test.map_box(p.b_lo, p.b_hi);
            let mut mask = node.overlap_mask(c - h, c + h);
            if mask != 0 {
                mask &= rel.b_test.overlap_lanes(node, p.b_lo, p.b_hi);
            }
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let bx = node.child_box(lane);
                stack.push(Pair { a: node.child[lane], a_lo: bx.min, a_hi: bx.max, ..p });
            }
        } else {
            let node = &b_nodes[node_index(p.b)];
            let (c, h) = rel.b_test.map_box(p.a_lo, p.a_hi);
            let mut mask = node.overlap_mask(c - h, c + h);
            if mask != 0 {
                mask &= rel.a_test.overlap_lanes(node, p.a_lo, p.a_hi);
            }
            while mask != 0 {
                let lane = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                let bx = node.child_box(lane);
                stack.push(Pair { b: node.child[lane], b_lo: bx.min, b_hi: bx.max, ..p });
            }
        }
    }
    true
}

/// The exact tests of one pair of leaves: B's leaf mapped into A's space (reused while the same
/// B leaf comes back), then for each B triangle, four A triangles at a time pre-filtered by box.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn leaf_pair(
    a: &TriMesh,
    b: &TriMesh,
    rel: &Relative,
    leaf: &mut MappedLeaf,
    (a_first, a_end): (u32, u32),
    b_code: u32,
    (b_first, b_end): (u32, u32),
    hit: &mut impl FnMut(u32, u32) -> bool,
) -> bool {
    if leaf.code != b_code {
        leaf.code = b_code;
        leaf.len = (b_end - b_first) as usize;
        for (i, k) in (b_first..b_end).enumerate() {
            let t = rel.map_b_triangle(b.slot_corners(k));
            leaf.lo[i] = t[0].min(t[1]).min(t[2]);
            leaf.hi[i] = t[0].max(t[1]).max(t[2]);
            leaf.tris[i] = t;
        }
    }
    let mut first = a_first;
    while first < a_end {
        let lanes = (a_end - first).min(4);
        let t = a.slot_triangles4(first, a_end);
        let lo: [Vec4; 3] = std::array::from_fn(|axis| t[0][axis].min(t[1][axis]).min(t[2][axis]));
        let hi: [Vec4; 3] = std::array::from_fn(|axis| t[0][axis].max(t[1][axis]).max(t[2][axis]));
        let lane_mask = (1u32 << lanes) - 1;
        for j in 0..leaf.len {
            let (blo, bhi) = (leaf.lo[j], leaf.hi[j]);
            let overlap = lo[0].cmple(Vec4::splat(bhi.x))
                & hi[0].cmpge(Vec4::splat(blo.x))
                & lo[1].cmple(Vec4::splat(bhi.y))
                & hi[1].cmpge(Vec4::splat(blo.y))
                & lo[2].cmple(Vec4::splat(bhi.z))
                & hi[2].cmpge(Vec4::splat(blo.z));
            let mut mask = overlap.bitmask() & lane_mask;
            while mask != 0 {
                let ka = first + mask.trailing_zeros();
                mask &= mask - 1;
                if test_triangle_triangle(a.slot_corners(ka), &leaf.tris[j]) && !hit(ka, b_first + j as u32) {
                    return false;
                }
            }
        }
        first += 4;
    }
    true
}

/// Closest points of the surfaces of A (placed by `fa`) and B (placed by `fb`), measured in the
/// common frame both maps lead to.
///
/// Best-first by node pairs: a pair's key is the squared distance between the frame boxes of its
/// two nodes (each node box mapped by its own map, Arvo), shrunk by a rounding allowance, so it
/// bounds the distance of any two triangles below; pairs whose key exceeds the best distance so
/// far are dropped. Leaves' triangles are mapped into the frame once per leaf visit.
pub(crate) fn distance_in_frame(
    a: &TriMesh,
    fa: &Affine3A,
    b: &TriMesh,
    fb: &Affine3A,
    max_distance: f32,
) -> Option<MeshDistance> {
    if !(max_distance >= 0.0) || !fa.is_finite() || !fb.is_finite() {
        return None;
    }
    let (ma, mb) = (BoxMap::new(fa, Vec3::ZERO), BoxMap::new(fb, Vec3::ZERO));
    let (a_root, b_root) = (a.bounds(), b.bounds());
    let (a_frame, b_frame) = (a_root.transformed(fa), b_root.transformed(fb));
    // Every frame coordinate is below `reach`; rounding of mapped points and boxes stays within
    // a few ulps of it.
    let reach = a_frame.min.abs().max(a_frame.max.abs()).max(b_frame.min.abs().max(b_frame.max.abs()));
    let slack = reach.max_element() * ROUNDING as f32;
    if !slack.is_finite() {
        return None;
    }
    let key = |(ca, ha): (Vec3, Vec3), (cb, hb): (Vec3, Vec3)| {
        let gap = ((ca - cb).abs() - ha - hb - Vec3::splat(slack)).max(Vec3::ZERO);
        gap.length_squared()
    };
    let mut limit =
        if max_distance.is_finite() { (max_distance * max_distance).min(f32::MAX) } else { f32::MAX };
    let mut best: Option<(f32, Vec3, Vec3, u32, u32)> = None;
    struct Entry {
        key: f32,
        pair: Pair,
        a_box: (Vec3, Vec3),
        b_box: (Vec3, Vec3),
    }
    let mut stack = Vec::with_capacity(64);
    let root_a = ma.map_box(a_root.min, a_root.max);
    let root_b = mb.map_box(b_root.min, b_root.max);
    stack.push(Entry {
        key: key(root_a, root_b),
        pair: Pair { a: 0, b: 0, a_lo: a_root.min, a_hi: a_root.max, b_lo: b_root.min, b_hi: b_root.max },
        a_box: root_a,
        b_box: root_b,
    });
    let mut a_tris: Vec<[Vec3; 3]> = Vec::with_capacity(MAX_LEAF);
    let mut b_tris: Vec<[Vec3; 3]> = Vec::with_capacity(MAX_LEAF);
    let (mut a_code, mut b_code) = (0, 0);
    let mut children: Vec<Entry> = Vec::with_capacity(4);
    while let Some(e) = stack.pop() {
        if e.key > limit {
            continue;
        }
        let p = e.pair;
        let (a_leaf, b_leaf) = (leaf_range(p.a), leaf_range(p.b));
        if let (Some((af, ae)), Some((bf, be))) = (a_leaf, b_leaf) {
            if a_code != p.a {
                a_code = p.a;
                a_tris.clear();
                a_tris.extend((af..ae).map(|k| a.slot_corners(k).map(|q| fa.transform_point3(q))));
            }
            if b_code != p.b {
                b_code = p.b;
                b_tris.clear();
                b_tris.extend((bf..be).map(|k| b.slot_corners(k).map(|q| fb.transform_point3(q))));
            }
            'leaf: for (i, ta) in a_tris.iter().enumerate() {
                let (alo, ahi) = (ta[0].min(ta[1]).min(ta[2]), ta[0].max(ta[1]).max(ta[2]));
                for (j, tb) in b_tris.iter().enumerate() {
                    let (blo, bhi) = (tb[0].min(tb[1]).min(tb[2]), tb[0].max(tb[1]).max(tb[2]));
                    let gap = (blo - ahi).max(alo - bhi).max(Vec3::ZERO) - Vec3::splat(slack);
                    if gap.max(Vec3::ZERO).length_squared() > limit {
                        continue;
                    }
                    let (d2, pa, pb) = closest_triangle_triangle(ta, tb);
                    if d2 <= limit && best.is_none_or(|(bd, ..)| d2 < bd) {
                        limit = d2;
                        best = Some((d2, pa, pb, af + i as u32, bf + j as u32));
                        if d2 == 0.0 {
                            stack.clear(); // nothing is closer than touching
                            break 'leaf;
                        }
                    }
                }
            }
            continue;
        }
        let open_a =
            b_leaf.is_some() || (a_leaf.is_none() && (e.a_box.1.element_sum() >= e.b_box.1.element_sum()));
        children.clear();
        if open_a {
            let node = &a.bvh().nodes()[node_index(p.a)];
            for lane in (0..4).filter(|&lane| node.child[lane] != 0) {
                let bx = node.child_box(lane);
                let a_box = ma.map_box(bx.min, bx.max);
                let k = key(a_box, e.b_box);
                if k <= limit {
                    let pair = Pair { a: node.child[lane], a_lo: bx.min, a_hi: bx.max, ..p };
                    children.push(Entry { key: k, pair, a_box, b_box: e.b_box });
                }
            }
        } else {
            let node = &b.bvh().nodes()[node_index(p.b)];
            for lane in (0..4).filter(|&lane| node.child[lane] != 0) {
                let bx = node.child_box(lane);
                let b_box = mb.map_box(bx.min, bx.max);
                let k = key(e.a_box, b_box);
                if k <= limit {
                    let pair = Pair { b: node.child[lane], b_lo: bx.min, b_hi: bx.max, ..p };
                    children.push(Entry { key: k, pair, a_box: e.a_box, b_box });
                }
            }
        }
        // Nearest on top of the stack.
        children.sort_unstable_by(|x, y| y.key.total_cmp(&x.key));
        stack.append(&mut children);
    }
    let (d2, point_a, point_b, ka, kb) = best?;
    Some(MeshDistance {
        distance: d2.sqrt(),
        point_a,
        point_b,
        triangle_a: a.slot_id(ka),
        triangle_b: b.slot_id(kb),
    })
}

/// Squared distance and closest points of two closed triangles: zero and a common point when
/// they meet (exact test), otherwise the best of the nine edge pairs and the six corners against
/// the other triangle, where the closest pair of two disjoint triangles always lies.
pub(crate) fn closest_triangle_triangle(p: &[Vec3; 3], q: &[Vec3; 3]) -> (f32, Vec3, Vec3) {
    let meet = intersect_triangle_triangle(p, q);
    if let Some(TriangleIntersection::Segment { start, .. }) = meet {
        return (0.0, start, start);
    }
    let mut best = (f32::INFINITY, p[0], q[0]);
    let mut keep = |d2: f32, x: Vec3, y: Vec3| {
        if d2 < best.0 {
            best = (d2, x, y);
        }
    };
    for i in 0..3 {
        for j in 0..3 {
            let c = closest_points_segment_segment(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]);
            keep(c.distance_squared, c.point_a, c.point_b);
        }
    }
    for i in 0..3 {
        let c = closest_point_triangle(p[i], q).point;
        keep((c - p[i]).length_squared(), p[i], c);
        let c = closest_point_triangle(q[i], p).point;
        keep((c - q[i]).length_squared(), c, q[i]);
    }
    if meet.is_some() {
        // Coplanar overlap: the best pair found is (up to rounding) a common point.
        return (0.0, best.1, best.1);
    }
    best
}
