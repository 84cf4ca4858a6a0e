//! Mesh against mesh, each placed by an affine map, without rebuilding either mesh: overlap
//! (with solid semantics for closed meshes), all intersecting triangle pairs, contact manifolds
//! ([`MeshContact`], method in `contacts`), and distance. The queries are methods of
//! [`MeshInstance`](super::MeshInstance): they take two placed meshes and answer in world space,
//! and run in A's mesh space with B placed by the relative map `A⁻¹ · B`, computed once.
//!
//! # Queries
//!
//! - Overlap ([`MeshOverlap`]): some triangles touch or cross, or one mesh lies inside the other
//!   where that other is solid (see *Solids and surfaces*). The descent stops at the first
//!   intersecting triangle pair. With a [`MeshMeshCache`], the query first re-checks the last
//!   witness and stores the new one (cleared on a miss); the answer is the same with or without
//!   a cache, only the witness reported may differ. A relative map that carries B's coordinates
//!   beyond `f32` range (rounding bounds overflow) gives no overlap and leaves the cache as it
//!   was. Allocation-free.
//! - Containment depth ([`MeshOverlap::AInsideB`], [`MeshOverlap::BInsideA`]), in the world: from
//!   the tested vertex to the closest point of the containing surface, found in that surface's
//!   own mesh space. It is the exact distance from that vertex to the surface when the
//!   placements are similarities, otherwise an upper bound of it; either way an estimate of the
//!   penetration, which would need the deepest vertex, not just one.
//! - Intersecting triangles: every pair `(triangle of A, triangle of B)` (ids), in no particular
//!   order. Surfaces only: containment adds no pairs.
//! - Contacts ([`MeshContact`]): at most four points per touching region, in the world; a mesh
//!   inside a solid one gives one region with one point.
//! - Distance ([`MeshDistance`]): the closest points of the two surfaces, both meshes' triangles
//!   mapped to the world, if at most `max_distance` apart (`f32::INFINITY` for no limit); none
//!   for a NaN or negative `max_distance`. It is the distance between the surfaces: a mesh
//!   inside a solid other one is at a positive distance from it although the solids overlap.
//!   Computed in `f32` on the mapped triangles: relative error of a few ulps of the coordinates'
//!   magnitude.
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
mod distance;

pub use contacts::MeshContact;
pub(crate) use contacts::contacts_in_frame;
pub(crate) use distance::distance_in_frame;

use super::trimesh::TriMesh;
use crate::bounds::Aabb3;
use crate::bvh::{MAX_LEAF_SIZE, Node4, Tree};
use crate::primitive::test_triangle_triangle;
use glam::{Affine3A, DMat3, DVec3, Mat3, Vec3, Vec4};
use std::ops::Range;

/// Caller-owned memory of one pair of meshes between queries (temporal coherence).
///
/// An overlap query first re-checks what proved the last answer. After an overlap: the
/// intersecting triangle pair, or the vertex found inside the other solid. After a miss: the
/// plane that separated the meshes' convex hulls (from the meshes' support tables, see
/// [`TriMesh::bounds_under`]). After a small motion this usually still holds and the query costs
/// one triangle test, one inside test or two table lookups instead of a descent. A stale or
/// foreign cache (from another pair of meshes) is harmless: it is only ever a candidate,
/// re-checked exactly, and a failed check falls back to the full query.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeshMeshCache {
    witness: Witness,
    /// The normal (A's mesh space, not unit) of the plane that last separated the hulls.
    apart: Option<Vec3>,
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
        *self = Self::default();
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
    /// vertex of A to B's surface (see [`MeshInstance::mesh_overlap`](super::MeshInstance::mesh_overlap)).
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
    /// True if this mesh (A) and `other` (B), placed in A's mesh space by `other_in_self` (B's
    /// mesh space to A's), overlap (see the [module documentation](self)); `false` for a bad map
    /// (see [`Relative::new`]).
    pub(crate) fn intersects_mesh(
        &self,
        other: &TriMesh,
        other_in_self: &Affine3A,
        cache: Option<&mut MeshMeshCache>,
    ) -> bool {
        let Some(rel) = Relative::new(self, other, other_in_self) else { return false };
        find_overlap(self, other, &rel, cache).is_some()
    }

    /// Appends every intersecting pair `(triangle of A, triangle of B)` (ids) to `out`, B placed
    /// as for [`TriMesh::intersects_mesh`]; nothing for a bad map.
    pub(crate) fn intersecting_triangles(
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
}

/// How A and B overlap under `rel` (see the [module documentation](self)), or `None`; the
/// containment depth is measured after mapping A's mesh space by `frame` (A's placement in the
/// world).
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
    let Some(cache) = cache else { return full_overlap(a, b, rel) };
    // Overlapping last time: the witness, or one next to it, most likely still is.
    if let Some(witness) = recheck(a, b, rel, cache.witness) {
        *cache = MeshMeshCache { witness, apart: None };
        return Some(witness);
    }
    // Apart: the last separating direction, then the direction between the boxes' centres.
    let centers = rel.to_a.transform_point3(b.bounds().center()) - a.bounds().center();
    let apart = cache.apart.into_iter().chain([centers]).find(|&d| hulls_apart(a, b, rel, d));
    let witness = if apart.is_some() { None } else { full_overlap(a, b, rel) };
    *cache = MeshMeshCache { witness: witness.unwrap_or(Witness::None), apart };
    witness
}

/// The overlap query without a cache: a descent to the first intersecting triangle pair, then
/// the containment test.
fn full_overlap(a: &TriMesh, b: &TriMesh, rel: &Relative) -> Option<Witness> {
    let mut found = Witness::None;
    descend(a, b, rel, |ka, kb| {
        found = Witness::Triangles { a: ka, b: kb };
        false
    });
    if found == Witness::None {
        found = containment(a, b, rel);
    }
    (found != Witness::None).then_some(found)
}

/// True if the plane with normal `dir` (A's mesh space) separates the convex hulls of A and of B
/// (placed by `rel`) by more than the rounding of the test: then the meshes, solids or surfaces,
/// do not touch. The hulls' supports are bounded from above by the meshes' support tables, so a
/// `true` is a proof; a `false` proves nothing.
fn hulls_apart(a: &TriMesh, b: &TriMesh, rel: &Relative, dir: Vec3) -> bool {
    // max over A of `dir · x`, and min over B of `dir · (M p + t)` = `dir · t - h_B(-Mᵀ dir)`.
    let m = Mat3::from(rel.to_a.matrix3);
    let t = Vec3::from(rel.to_a.translation);
    let a_reach = a.support_grid().support(dir);
    let b_near = dir.dot(t) - b.support_grid().support(-(m.transpose() * dir));
    // Rounding: a few ulps of the magnitudes the two sides are made of.
    let size = |bounds: crate::bounds::Aabb3| bounds.min.abs().max(bounds.max.abs()).max_element();
    let magnitude = size(a.bounds()) + rel.b_size.max_element() * size(b.bounds()) + t.abs().max_element();
    let tolerance = 1e-5 * dir.length() * magnitude;
    b_near - a_reach > tolerance
}

/// The witness, or for a triangle pair that no longer intersects an intersecting pair among the
/// triangles around it (each triangle and its edge neighbours, when both meshes are solids and
/// have them), if that proves an overlap now (`witness` may come from an earlier query on other
/// meshes). The intersection curve moves little between two steps, so it is usually found again
/// next to where it was.
fn recheck(a: &TriMesh, b: &TriMesh, rel: &Relative, witness: Witness) -> Option<Witness> {
    let proves = match witness {
        Witness::None => false,
        Witness::Triangles { a: ka, b: kb } => {
            if (ka as usize) >= a.triangle_count() || (kb as usize) >= b.triangle_count() {
                return None;
            }
            if test_triangle_triangle(a.slot_corners(ka), &rel.map_b_triangle(b.slot_corners(kb))) {
                return Some(witness);
            }
            let (Some(sa), Some(sb)) = (a.solid(), b.solid()) else { return None };
            // A missing neighbour (none in a solid, but checked) repeats the triangle itself.
            let ring = |k: u32, neighbors: &[[u32; 3]]| {
                let across =
                    neighbors[k as usize].map(|n| if (n as usize) < neighbors.len() { n } else { k });
                [k, across[0], across[1], across[2]]
            };
            let b_ring = ring(kb, &sb.neighbors).map(|k| (k, rel.map_b_triangle(b.slot_corners(k))));
            for ia in ring(ka, &sa.neighbors) {
                let ta = a.slot_corners(ia);
                if let Some(&(ib, _)) = b_ring.iter().find(|(_, tb)| test_triangle_triangle(ta, tb)) {
                    return Some(Witness::Triangles { a: ia, b: ib });
                }
            }
            false
        }
        Witness::BVertexInA(v) => {
            b.vertices().get(v as usize).is_some_and(|&p| inside(a, rel.to_a.transform_point3(p)))
        }
        Witness::AVertexInB(u) => {
            a.vertices().get(u as usize).is_some_and(|&p| inside(b, rel.to_b.transform_point3(p)))
        }
    };
    proves.then_some(witness)
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

/// The boxes of a pair of nodes in the overlap descent, each in its own mesh's space.
#[derive(Clone, Copy)]
struct NodeBoxes {
    a_lo: Vec3,
    a_hi: Vec3,
    b_lo: Vec3,
    b_hi: Vec3,
}

/// The triangles of one BVH leaf mapped into a common space, with each triangle's box; kept
/// while a descent stays on that leaf.
struct MappedLeaf {
    /// The leaf's first slot (`u32::MAX` before the first leaf: no leaf starts there).
    first: u32,
    len: usize,
    tris: [[Vec3; 3]; MAX_LEAF_SIZE],
    lo: [Vec3; MAX_LEAF_SIZE],
    hi: [Vec3; MAX_LEAF_SIZE],
}

impl MappedLeaf {
    fn new() -> Self {
        MappedLeaf {
            first: u32::MAX,
            len: 0,
            tris: [[Vec3::ZERO; 3]; MAX_LEAF_SIZE],
            lo: [Vec3::ZERO; MAX_LEAF_SIZE],
            hi: [Vec3::ZERO; MAX_LEAF_SIZE],
        }
    }

    /// Holds the triangles of `mesh`'s leaf `slots` mapped by `map` (rounded exactly as every
    /// query and the reference map them), unless it holds them already.
    #[inline(always)]
    fn load(&mut self, mesh: &TriMesh, slots: Range<u32>, map: &Affine3A) {
        if self.first == slots.start {
            return;
        }
        self.first = slots.start;
        self.len = slots.len();
        for (i, k) in slots.enumerate() {
            let t = mesh.slot_corners(k).map(|p| map.transform_point3(p));
            self.lo[i] = t[0].min(t[1]).min(t[2]);
            self.hi[i] = t[0].max(t[1]).max(t[2]);
            self.tris[i] = t;
        }
    }
}

/// Calls `hit(slot of A, slot of B)` for every intersecting triangle pair (exact test on B's
/// mapped triangles) until it returns `false`. Returns `false` if stopped.
///
/// The node with the larger box in A's space is opened; its children are kept by the two sets
/// of axes of the module documentation.
#[inline]
fn descend(a: &TriMesh, b: &TriMesh, rel: &Relative, mut hit: impl FnMut(u32, u32) -> bool) -> bool {
    let (a_root, b_root) = (a.bounds(), b.bounds());
    // The root pair: both boxes tested once on the two sets of axes.
    let (c, h) = rel.a_test.map_box(b_root.min, b_root.max);
    let (ac, ah) = (a_root.center(), a_root.half_extents());
    let (bc, bh) = rel.b_test.map_box(a_root.min, a_root.max);
    if !((c - ac).abs().cmple(h + ah).all()
        && (bc - b_root.center()).abs().cmple(bh + b_root.half_extents()).all())
    {
        return true;
    }
    let root = NodeBoxes { a_lo: a_root.min, a_hi: a_root.max, b_lo: b_root.min, b_hi: b_root.max };
    let mut leaf = MappedLeaf::new();
    a.bvh().descend_pairs(
        b.bvh(),
        root,
        |p| {
            let a_larger = (p.a_hi - p.a_lo).element_sum() >= rel.b_size.dot(p.b_hi - p.b_lo);
            if a_larger { Tree::A } else { Tree::B }
        },
        // The other node's box mapped into the opened node's space against the children, then
        // the children mapped into the other node's space against its box.
        |p, tree, node, pairs| match tree {
            Tree::A => {
                let (c, h) = rel.a_test.map_box(p.b_lo, p.b_hi);
                let mut mask = node.overlap_mask(c - h, c + h);
                if mask != 0 {
                    mask &= rel.b_test.overlap_lanes(node, p.b_lo, p.b_hi);
                }
                while mask != 0 {
                    let lane = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    let bx = node.child_box(lane);
                    pairs.push(lane, NodeBoxes { a_lo: bx.min, a_hi: bx.max, ..*p });
                }
            }
            Tree::B => {
                let (c, h) = rel.b_test.map_box(p.a_lo, p.a_hi);
                let mut mask = node.overlap_mask(c - h, c + h);
                if mask != 0 {
                    mask &= rel.a_test.overlap_lanes(node, p.a_lo, p.a_hi);
                }
                while mask != 0 {
                    let lane = mask.trailing_zeros() as usize;
                    mask &= mask - 1;
                    let bx = node.child_box(lane);
                    pairs.push(lane, NodeBoxes { b_lo: bx.min, b_hi: bx.max, ..*p });
                }
            }
        },
        |a_slots, b_slots, _| leaf_pair(a, b, rel, &mut leaf, a_slots, b_slots, &mut hit),
    )
}

/// The exact tests of one pair of leaves: B's leaf mapped into A's space (reused while the same
/// B leaf comes back), then for each B triangle, four A triangles at a time pre-filtered by box.
#[inline(always)]
fn leaf_pair(
    a: &TriMesh,
    b: &TriMesh,
    rel: &Relative,
    leaf: &mut MappedLeaf,
    a_slots: Range<u32>,
    b_slots: Range<u32>,
    hit: &mut impl FnMut(u32, u32) -> bool,
) -> bool {
    let b_first = b_slots.start;
    leaf.load(b, b_slots, &rel.to_a);
    let (mut first, a_end) = (a_slots.start, a_slots.end);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Non-finite and singular relative maps give the documented "no" answers, and leave a
    /// cache as it was.
    #[test]
    fn bad_relative_maps_find_nothing() {
        let a = TriMesh::new(
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]],
        )
        .unwrap();
        let nan = Affine3A::from_translation(Vec3::new(f32::NAN, 0.0, 0.0));
        let inf = Affine3A::from_scale(Vec3::new(f32::INFINITY, 1.0, 1.0));
        let flat = Affine3A::from_scale(Vec3::new(1.0, 1.0, 0.0));
        let tiny = Affine3A::from_scale(Vec3::splat(1e-30));
        for map in [nan, inf, flat, tiny] {
            assert!(Relative::new(&a, &a, &map).is_none(), "{map:?}");
            let mut cache = MeshMeshCache::new();
            assert!(a.intersects_mesh(&a, &Affine3A::IDENTITY, Some(&mut cache)));
            assert!(!a.intersects_mesh(&a, &map, Some(&mut cache)), "{map:?}");
            assert!(cache.has_witness());
            let mut pairs = Vec::new();
            a.intersecting_triangles(&a, &map, &mut pairs);
            assert!(pairs.is_empty());
            assert_eq!(distance_in_frame(&a, &Affine3A::IDENTITY, &a, &nan, f32::INFINITY), None);
        }
    }
}
