//! `TriMesh`: an indexed triangle mesh with its BVH, validated once at construction.

use super::support::SupportGrid;
use super::topology::{
    EdgeNeighbor, TopologyReport, active_edges, component_seeds, edge_neighbors, mesh_report,
};
use crate::bounds::Aabb3;
use crate::bvh::{Bvh3, BvhSettings, MAX_PRIMITIVES};
use crate::primitive::Triangles4;
use glam::{Affine3A, Vec3, Vec3A, Vec4};
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;

/// Why a mesh could not be built.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshError {
    /// The mesh has no triangles.
    NoTriangles,
    /// `triangles[triangle][corner]` is `index`, but there are only `vertex_count` vertices.
    IndexOutOfRange { triangle: usize, corner: usize, index: u32, vertex_count: usize },
    /// Vertex `index` has a NaN or infinite coordinate.
    NonFiniteVertex { index: usize, position: Vec3 },
    /// More triangles than a BVH can index ([`MAX_PRIMITIVES`]).
    TooManyTriangles { count: usize },
    /// A vertex update did not keep the vertex count.
    VertexCountChanged { expected: usize, got: usize },
}

impl fmt::Display for MeshError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::NoTriangles => write!(f, "the mesh has no triangles"),
            MeshError::IndexOutOfRange { triangle, corner, index, vertex_count } => write!(
                f,
                "triangle {triangle} corner {corner} refers to vertex {index}, but the mesh has {vertex_count} vertices"
            ),
            MeshError::NonFiniteVertex { index, position } => {
                write!(f, "vertex {index} has a non-finite coordinate: {position}")
            }
            MeshError::TooManyTriangles { count } => {
                write!(f, "{count} triangles exceed the limit of {MAX_PRIMITIVES}")
            }
            MeshError::VertexCountChanged { expected, got } => {
                write!(f, "expected {expected} vertices, got {got}")
            }
        }
    }
}

impl std::error::Error for MeshError {}

/// The hierarchy of a mesh: leaves of up to 8 triangles, and a node visit priced at 4 triangle
/// tests in the SAH.
///
/// Incoherent rays and points spend most of their time waiting for nodes and triangles that are
/// not in cache, so a smaller tree pays more than fewer triangle tests. Against the default
/// settings (leaves of at most 4, cost 1), these give about a third as many nodes, with leaves
/// about three times as large: a closest-hit ray visits a few fewer nodes and tests a few more
/// triangles, a closest-point query visits far fewer nodes, and both miss a simulated cache less
/// often; the build does less work too. Larger leaves (12 or 15 triangles) help points a little
/// more and rays a little less.
const MESH_BVH_SETTINGS: BvhSettings = BvhSettings { max_leaf_size: 8, traversal_cost: 4.0 };

/// The longest run of triangles [`edge_strips`] groups.
const STRIP: usize = 4;

/// When the mesh lists its triangles in strips, the starts of the groups the BVH is built over:
/// runs of up to [`STRIP`] consecutive triangles, each sharing an edge with the one before
/// (`starts[k]..starts[k + 1]` is group `k`; the last entry is the triangle count). `None` when
/// more than a quarter of the triangles would be alone.
///
/// Grids, height fields, surfaces of revolution and quad-dominant exports list each quad as two
/// triangles in a row, and often a row of quads in order; so do CAD tessellations (the fandisk
/// of the tests). The triangles of a quad span nearly its whole box each, and the SAH tree over
/// triangles keeps such neighbours in one leaf anyway; over runs it bins a quarter as many
/// records. On tori listed in runs of two quads, that build is clearly shorter than one over
/// pairs or over single triangles, for a tree of slightly higher SAH cost and the same ray
/// costs. Meshes from scans and remeshing keep the tree over triangles: half of the bunny's
/// triangles and 39% of the dragon's would be alone.
fn edge_strips(triangles: &[[u32; 3]]) -> Option<Vec<u32>> {
    let most_alone = triangles.len() / 4;
    let mut starts = Vec::with_capacity(triangles.len() / 2 + 2);
    let mut alone = 0;
    let mut k = 0;
    while k < triangles.len() {
        starts.push(k as u32);
        let mut end = k + 1;
        while end - k < STRIP
            && let Some(next) = triangles.get(end)
            && next.iter().filter(|i| triangles[end - 1].contains(i)).count() == 2
        {
            end += 1;
        }
        if end == k + 1 {
            alone += 1;
            if alone > most_alone {
                return None;
            }
        }
        k = end;
    }
    starts.push(triangles.len() as u32);
    Some(starts)
}

/// [`MESH_BVH_SETTINGS`] for a hierarchy over the groups of [`edge_strips`], whose SAH counts
/// groups: the costs are divided by the mean group size.
fn strip_bvh_settings(triangles: usize, groups: usize) -> BvhSettings {
    let mean = triangles as f32 / groups.max(1) as f32;
    BvhSettings {
        max_leaf_size: (MESH_BVH_SETTINGS.max_leaf_size as f32 / mean).round().max(1.0) as usize,
        traversal_cost: MESH_BVH_SETTINGS.traversal_cost / mean,
    }
}

/// A triangle mesh: vertices, triangles as vertex-index triples, and a [`Bvh3`] over them.
///
/// The mesh is built once and shared (`Arc<TriMesh>`) by any number of placed instances.
/// Construction validates the input: every index in range, every vertex finite. Degenerate
/// triangles (repeated indices, zero area) are kept; no query ever reports them spuriously.
///
/// Triangle ids in query results are indices into [`TriMesh::triangles`], the order given at
/// construction. Internally the corners are also stored in BVH leaf order, so a leaf's triangles
/// are read as one contiguous run.
///
/// A mesh is *solid* when it is closed (every edge shared by exactly two triangles, all
/// consistently oriented): inside/outside and signed distance are defined only then. Other meshes
/// are surfaces: queries see only their triangles.
///
/// *Inside* is where the generalized winding number of the surface is not zero: the points it
/// encloses a non-zero number of times, counted with the triangles' orientation (closed sets:
/// the surface itself is inside). For a solid that does not pass through itself this is the
/// volume it bounds, decided at the closest surface point by its pseudo-normal. A solid that
/// passes through itself ([`TopologyReport::self_intersecting_pairs`] non-zero, such as two
/// overlapping closed parts merged into one mesh) is decided by counting the signed crossings of
/// a ray, so that every inside query ([`TriMesh::contains_point`], the sign of
/// [`TriMesh::signed_distance`], the solid semantics of spheres and of mesh pairs) gives the
/// same answer.
///
/// Construction does only what every query needs: validation, the BVH and the leaf-ordered
/// corners. The topology report (with the self-intersections: a descent of the BVH against
/// itself) and the data of solid meshes (edge adjacency, vertex pseudo-normals) are computed on
/// first use ([`TriMesh::topology`], [`TriMesh::is_solid`], or a query that needs them), once,
/// thread-safely.
#[derive(Clone, Debug)]
pub struct TriMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bvh: Bvh3,
    /// Triangles in leaf order: slot `k` holds triangle `bvh.leaf_order()[k]`.
    slots: Vec<Slot>,
    /// Computed on first use; reset when vertices move (the self-intersections follow them).
    topology: OnceLock<TopologyReport>,
    /// The topology report from the indices alone (no self-intersection count), which the solid
    /// data needs: computed on first use, kept when vertices move.
    connectivity: OnceLock<TopologyReport>,
    /// Computed on first use, like the one below; they depend on the indices only.
    edge_neighbors: OnceLock<Vec<[EdgeNeighbor; 3]>>,
    component_seeds: OnceLock<Vec<u32>>,
    /// Computed on first use (`None` for a mesh that is not solid); reset when vertices move.
    solid: OnceLock<Option<Solid>>,
    /// The active-edge bits ([`active_edges`]), computed on first use; reset when vertices move.
    active_edges: OnceLock<Vec<u8>>,
    /// The support function on a grid of directions, for tight boxes under maps: computed on
    /// first use; reset when vertices move.
    support: OnceLock<SupportGrid>,
}

/// What closed meshes store for inside/outside tests: angle-weighted pseudo-normals
/// (Bærentzen and Aanæs, "Signed distance computation using the angle weighted pseudonormal",
/// IEEE TVCG 2005). The sign of `(p - q) · n` with `q` the closest point and `n` the pseudo-normal
/// of the feature `q` lies on is the exact inside/outside answer, including near edges and
/// vertices.
#[derive(Clone, Debug)]
pub(crate) struct Solid {
    /// Per leaf slot, per edge `i` (corner `i` to `i + 1`): the leaf slot of the triangle across
    /// it (from [`TriMesh::edge_neighbors`]).
    pub neighbors: Vec<[u32; 3]>,
    /// Per vertex: the angle-weighted sum of incident unit face normals (not normalized).
    pub vertex_normals: Vec<Vec3>,
    /// `1.0` if the triangles wind outward (positive signed volume), `-1.0` if inward.
    pub orientation: f32,
    /// The surface passes through itself: pseudo-normals do not decide inside, the winding
    /// number does.
    pub self_intersecting: bool,
}

/// Heap memory of a [`TriMesh`], by part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryReport {
    /// The vertices, and once computed the support table of [`TriMesh::bounds_under`] (about
    /// 1 KB).
    pub vertices: usize,
    pub triangles: usize,
    pub bvh: usize,
    /// Leaf-ordered triangle corners and ids (what queries read).
    pub corners: usize,
    /// Edge adjacency and connected components, once computed (for the topology report, solid
    /// meshes and mesh-vs-mesh containment).
    pub adjacency: usize,
    /// Pseudo-normals and leaf-ordered adjacency of solid meshes.
    pub solid: usize,
    pub triangle_count: usize,
}

impl MemoryReport {
    pub fn total(&self) -> usize {
        self.vertices + self.triangles + self.bvh + self.corners + self.adjacency + self.solid
    }

    pub fn bytes_per_triangle(&self) -> f64 {
        self.total() as f64 / self.triangle_count.max(1) as f64
    }
}

impl TriMesh {
    /// Validates the input and builds the BVH and the leaf-ordered corners. See [`MeshError`]
    /// for what is refused.
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<TriMesh, MeshError> {
        validate(&vertices, &triangles)?;
        // Triangle boxes go straight into the builder's records; validation made them finite.
        let bvh = match edge_strips(&triangles) {
            Some(starts) => {
                let boxes = starts.windows(2).enumerate().map(|(group, run)| {
                    let (mut min, mut max) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
                    for t in &triangles[run[0] as usize..run[1] as usize] {
                        let [a, b, c] = corners_of(&vertices, t).map(Vec3A::from);
                        (min, max) = (min.min(a).min(b).min(c), max.max(a).max(b).max(c));
                    }
                    (group as u32, min, max)
                });
                let settings = strip_bvh_settings(triangles.len(), starts.len() - 1);
                Bvh3::build_from_groups(boxes, &starts, settings)
            }
            None => {
                let boxes = triangles.iter().enumerate().map(|(id, t)| {
                    let [a, b, c] = corners_of(&vertices, t).map(Vec3A::from);
                    (id as u32, a.min(b).min(c), a.max(b).max(c))
                });
                Bvh3::build_from_boxes(boxes, MESH_BVH_SETTINGS)
            }
        };
        let slots = slots_of(&vertices, &triangles, bvh.leaf_order());
        Ok(TriMesh {
            vertices,
            triangles,
            bvh,
            slots,
            topology: OnceLock::new(),
            connectivity: OnceLock::new(),
            edge_neighbors: OnceLock::new(),
            component_seeds: OnceLock::new(),
            solid: OnceLock::new(),
            active_edges: OnceLock::new(),
            support: OnceLock::new(),
        })
    }

    /// Builds a mesh from loaded file data.
    #[cfg(feature = "io")]
    pub fn from_data(data: super::io::MeshData) -> Result<TriMesh, MeshError> {
        TriMesh::new(data.vertices, data.triangles)
    }

    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// The corners of triangle `id`, or `None` if there is no such triangle.
    pub fn triangle(&self, id: u32) -> Option<[Vec3; 3]> {
        self.triangles.get(id as usize).map(|t| corners_of(&self.vertices, t))
    }

    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    pub fn bvh(&self) -> &Bvh3 {
        &self.bvh
    }

    /// The box around all vertices used by triangles.
    pub fn bounds(&self) -> Aabb3 {
        self.bvh.bounds()
    }

    /// The support table of [`bounds_under`](Self::bounds_under), built on first use (a mesh
    /// without vertices has a table of `-inf`).
    pub(crate) fn support_grid(&self) -> &SupportGrid {
        self.support.get_or_init(|| {
            let bounds = self.bounds();
            SupportGrid::new(bounds.min.abs().max(bounds.max.abs()).max_element(), |d| self.support(d))
        })
    }

    /// `max d · p` over the triangles' corners (`-inf` without triangles): a branch-and-bound
    /// descent that skips nodes whose boxes reach no farther along `d` than the best corner so far.
    fn support(&self, d: Vec3) -> f32 {
        let Some(first) = self.slots.first() else { return f32::NEG_INFINITY };
        let best = std::cell::Cell::new(d.dot(first.corners[0]));
        let (dx, dy, dz) = (Vec4::splat(d.x), Vec4::splat(d.y), Vec4::splat(d.z));
        self.bvh.traverse(
            |node| {
                let b = &node.bounds;
                let reach =
                    (b[0] * dx).max(b[3] * dx) + (b[1] * dy).max(b[4] * dy) + (b[2] * dz).max(b[5] * dz);
                let present =
                    Vec4::from(node.child.map(|c| if c != 0 { 1.0 } else { 0.0 })).cmpgt(Vec4::ZERO);
                (reach.cmpgt(Vec4::splat(best.get())) & present).bitmask()
            },
            |range| {
                for slot in &self.slots[range.start as usize..range.end as usize] {
                    for p in slot.corners {
                        best.set(best.get().max(d.dot(p)));
                    }
                }
                true
            },
        );
        best.get()
    }

    /// A box containing the mesh under the map: within a few percent of the mesh's size of the
    /// exact box (the box of the mapped triangle corners), and never larger than the box of the
    /// mapped [`bounds`](Self::bounds). Costs six lookups in a table of the mesh's support
    /// function on about a thousand directions, built on the first call (a branch-and-bound
    /// descent of the BVH per direction).
    pub fn bounds_under(&self, to_world: &Affine3A) -> Aabb3 {
        let mapped_root = self.bounds().transformed(to_world);
        if self.vertices.is_empty() {
            return mapped_root;
        }
        let tight = self.support_grid().bounds(to_world);
        Aabb3::new(tight.min.max(mapped_root.min), tight.max.min(mapped_root.max))
    }

    /// How the triangles connect and where the surface passes through itself (computed on the
    /// first call, with the edge adjacency and the connected components; the self-intersections
    /// by a descent of the BVH against itself, which costs about as much as a mesh-vs-mesh
    /// query of the mesh with a copy of itself).
    pub fn topology(&self) -> &TopologyReport {
        self.topology.get_or_init(|| {
            let mut report = *self.connectivity();
            let mut pairs = 0;
            self.for_each_self_intersection(|_, _| {
                pairs += 1;
                true
            });
            report.self_intersecting_pairs = Some(pairs);
            report
        })
    }

    /// Appends to `out` every pair of triangle ids `(i, j)`, `i < j`, that meet other than in
    /// the vertices and edge they share ([`super::triangles_self_intersect`]), in no particular
    /// order; as many as [`TopologyReport::self_intersecting_pairs`] counts.
    pub fn self_intersecting_pairs(&self, out: &mut Vec<(u32, u32)>) {
        self.for_each_self_intersection(|k, l| {
            let (i, j) = (self.slot_id(k), self.slot_id(l));
            out.push((i.min(j), i.max(j)));
            true
        });
    }

    /// [`TriMesh::topology`] without the self-intersections.
    fn connectivity(&self) -> &TopologyReport {
        self.connectivity.get_or_init(|| {
            let components = self.component_seeds().len();
            mesh_report(&self.triangles, self.vertices.len(), self.edge_neighbors(), components)
        })
    }

    /// True if the mesh is closed and consistently oriented, so that it bounds a volume and
    /// inside/outside queries are defined (also when it passes through itself; see the type's
    /// documentation for what inside means then). The first call computes the edge topology and,
    /// for a solid mesh, its adjacency, pseudo-normals and whether it passes through itself (a
    /// search that stops at the first crossing pair; [`TriMesh::topology`] counts them all).
    pub fn is_solid(&self) -> bool {
        self.solid().is_some()
    }

    /// Heap memory currently held, by part. The adjacency and the solid data count only once
    /// computed (see [`TriMesh::topology`] and [`TriMesh::is_solid`]).
    pub fn memory(&self) -> MemoryReport {
        let adjacency =
            self.edge_neighbors.get().map_or(0, |n| n.capacity() * size_of::<[EdgeNeighbor; 3]>())
                + self.component_seeds.get().map_or(0, |s| s.capacity() * size_of::<u32>());
        let solid = self.solid.get().and_then(Option::as_ref).map_or(0, |s| {
            s.neighbors.capacity() * size_of::<[u32; 3]>() + s.vertex_normals.capacity() * size_of::<Vec3>()
        });
        let support = self.support.get().map_or(0, SupportGrid::memory_bytes);
        MemoryReport {
            vertices: self.vertices.capacity() * size_of::<Vec3>() + support,
            triangles: self.triangles.capacity() * size_of::<[u32; 3]>(),
            bvh: self.bvh.memory_bytes(),
            corners: self.slots.capacity() * size_of::<Slot>(),
            adjacency,
            solid,
            triangle_count: self.triangles.len(),
        }
    }

    /// Moves the vertices (same count, same triangles) and refits the BVH. The tree shape is kept,
    /// so queries stay exact but slow down if the mesh deforms a lot; build a new mesh then. The
    /// edge adjacency is kept; the topology report (whose self-intersections follow the
    /// vertices) and the solid data (pseudo-normals, orientation) are dropped and computed again
    /// on next use.
    pub fn set_vertices(&mut self, vertices: Vec<Vec3>) -> Result<(), MeshError> {
        if vertices.len() != self.vertices.len() {
            return Err(MeshError::VertexCountChanged { expected: self.vertices.len(), got: vertices.len() });
        }
        validate(&vertices, &self.triangles)?;
        self.vertices = vertices;
        self.slots = slots_of(&self.vertices, &self.triangles, self.bvh.leaf_order());
        let slots = &self.slots;
        self.bvh.refit(|k| triangle_box_of(&slots[k as usize].corners));
        // Self-intersections, pseudo-normals, orientation and creases follow the vertices; the
        // adjacency does not.
        self.topology = OnceLock::new();
        self.solid = OnceLock::new();
        self.active_edges = OnceLock::new();
        self.support = OnceLock::new();
        Ok(())
    }

    /// Corners of the triangle in leaf slot `k`.
    #[inline]
    pub(crate) fn slot_corners(&self, k: u32) -> &[Vec3; 3] {
        &self.slots[k as usize].corners
    }

    /// The triangles of leaf slots `first .. first + 4` side by side, for the four-wide tests;
    /// slots past `end` repeat the last one before it (callers mask those lanes).
    #[inline]
    pub(crate) fn slot_triangles4(&self, first: u32, end: u32) -> Triangles4 {
        let slot = |lane: u32| &self.slots[(first + lane).min(end - 1) as usize].corners;
        let quad = [slot(0), slot(1), slot(2), slot(3)];
        std::array::from_fn(|corner| {
            std::array::from_fn(|axis| Vec4::from_array(quad.map(|corners| corners[corner][axis])))
        })
    }

    /// Asks the CPU to start loading the triangles of leaf slots `range` (every cache line they
    /// span) so that their misses overlap instead of following one another; a hint only.
    #[inline]
    pub(crate) fn prefetch_slots(&self, range: Range<u32>) {
        #[cfg(target_arch = "x86_64")]
        if let Some(slots) = self.slots.get(range.start as usize..range.end as usize) {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let start = slots.as_ptr().cast::<i8>();
            let last = size_of_val(slots).saturating_sub(1);
            // The first byte of every 64-byte step, then the last byte: every line is touched.
            let mut offset = 0;
            while offset < last {
                // SAFETY: prefetching has no effect on program state and SSE is part of the
                // x86_64 baseline; the addresses lie inside a live slice.
                unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
                offset += 64;
            }
            // SAFETY: as above.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(last)) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = range;
    }

    /// The original triangle id of leaf slot `k`.
    #[inline]
    pub(crate) fn slot_id(&self, k: u32) -> u32 {
        self.slots[k as usize].id
    }

    /// Per triangle (indexed like [`TriMesh::triangles`]), per edge `i` (corner `i` to corner
    /// `i + 1`): what lies across the edge, by vertex index. [`EdgeNeighbor::shared`] gives the
    /// triangle across and its index of the same edge when exactly one other triangle uses the
    /// edge, in either direction; otherwise [`EdgeNeighbor::kind`] tells a boundary edge from a
    /// non-manifold one (three or more triangles). Degenerate triangles (a repeated index) have
    /// no edges, and their neighbours do not see them.
    ///
    /// Computed on the first call (one sort of the directed edges), then shared by the topology
    /// report and the solid data; kept when the vertices move.
    pub(crate) fn edge_neighbors(&self) -> &[[EdgeNeighbor; 3]] {
        self.edge_neighbors.get_or_init(|| edge_neighbors(&self.triangles))
    }

    /// Whether edge `edge` (0, 1 or 2: from corner `edge` to the next) of triangle `triangle` is
    /// a real crease or border of the surface rather than an internal edge between two triangles
    /// of a flat or gently curved patch (see [`super::ACTIVE_EDGE_ANGLE`]); `true` for an unknown
    /// triangle. Computed for the whole mesh on the first call.
    pub fn is_edge_active(&self, triangle: u32, edge: usize) -> bool {
        let bits = self
            .active_edges
            .get_or_init(|| active_edges(&self.vertices, &self.triangles, self.edge_neighbors()));
        bits.get(triangle as usize).is_none_or(|b| b & (1 << edge) != 0)
    }

    /// One vertex index per connected component of the triangles (triangles sharing a vertex
    /// index are connected), computed on the first call.
    pub(crate) fn component_seeds(&self) -> &[u32] {
        self.component_seeds.get_or_init(|| component_seeds(&self.triangles, self.vertices.len()))
    }

    /// The solid data, computed on the first call; `None` if the mesh is not solid.
    pub(crate) fn solid(&self) -> Option<&Solid> {
        self.solid
            .get_or_init(|| {
                let t = self.connectivity();
                (t.closed && t.inconsistent_orientation_edges == 0).then(|| self.build_solid())
            })
            .as_ref()
    }

    fn build_solid(&self) -> Solid {
        // The edge adjacency from triangle ids to leaf slots: in a closed, consistently oriented
        // mesh every edge has one triangle across.
        let order = self.bvh.leaf_order();
        let mut slot_of = vec![0u32; self.triangles.len()];
        for (k, &id) in order.iter().enumerate() {
            slot_of[id as usize] = k as u32;
        }
        let across = self.edge_neighbors();
        let neighbors = order
            .iter()
            .map(|&id| across[id as usize].map(|n| n.shared().map_or(u32::MAX, |(t, _)| slot_of[t as usize])))
            .collect();
        let mut vertex_normals = vec![Vec3::ZERO; self.vertices.len()];
        let mut signed_volume = 0.0f64;
        for t in &self.triangles {
            let [a, b, c] = corners_of(&self.vertices, t);
            signed_volume += f64::from(a.dot(b.cross(c)));
            let n = (b - a).cross(c - a).normalize_or_zero();
            for i in 0..3 {
                let p = [a, b, c];
                let (u, v) = (p[(i + 1) % 3] - p[i], p[(i + 2) % 3] - p[i]);
                vertex_normals[t[i] as usize] += n * u.angle_between(v);
            }
        }
        let orientation = if signed_volume < 0.0 { -1.0 } else { 1.0 };
        // Whether any pair crosses: the search stops at the first (a corrupted mesh may have
        // quadratically many), unless the report has already counted them.
        let self_intersecting = match self.topology.get() {
            Some(report) => report.self_intersecting_pairs.is_some_and(|n| n > 0),
            None => !self.for_each_self_intersection(|_, _| false),
        };
        Solid { neighbors, vertex_normals, orientation, self_intersecting }
    }
}

fn validate(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<(), MeshError> {
    if triangles.is_empty() {
        return Err(MeshError::NoTriangles);
    }
    if triangles.len() > MAX_PRIMITIVES {
        return Err(MeshError::TooManyTriangles { count: triangles.len() });
    }
    if let Some((index, &position)) = vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(MeshError::NonFiniteVertex { index, position });
    }
    for (triangle, t) in triangles.iter().enumerate() {
        for (corner, &index) in t.iter().enumerate() {
            if index as usize >= vertices.len() {
                return Err(MeshError::IndexOutOfRange {
                    triangle,
                    corner,
                    index,
                    vertex_count: vertices.len(),
                });
            }
        }
    }
    Ok(())
}

/// One triangle in leaf order: its corners and its id. The id sits next to the corners so that a
/// query reporting the triangle it found does not miss the cache once more on the leaf order.
#[derive(Clone, Copy, Debug)]
struct Slot {
    corners: [Vec3; 3],
    id: u32,
}

// SAFETY: a `Slot` is floats and an integer, for which all-zero bytes are valid values.
unsafe impl bytemuck::Zeroable for Slot {}

/// The triangles `leaf_order` lists, in that order.
fn slots_of(vertices: &[Vec3], triangles: &[[u32; 3]], leaf_order: &[u32]) -> Vec<Slot> {
    /// How many slots ahead the index triple is requested: leaf order jumps around the triangle
    /// array, and the misses on it would otherwise come one after another.
    const AHEAD: usize = 16;
    // The slots are written field by field in place: assembling each `Slot` as a value went
    // through a stack temporary whose 16-byte reload missed store forwarding. The zeroed
    // allocation comes zeroed from the system for large meshes, where filling it first would
    // cost one more pass over the memory.
    let mut slots: Vec<Slot> = bytemuck::zeroed_vec(leaf_order.len());
    for (k, (slot, &id)) in slots.iter_mut().zip(leaf_order).enumerate() {
        if let Some(t) = leaf_order.get(k + AHEAD).and_then(|&ahead| triangles.get(ahead as usize)) {
            prefetch(t);
        }
        let t = &triangles[id as usize];
        for (corner, &v) in slot.corners.iter_mut().zip(t) {
            *corner = vertices[v as usize];
        }
        slot.id = id;
    }
    slots
}

/// Asks the CPU to start loading the cache line that holds `item`; a hint only.
#[inline(always)]
fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: prefetching has no effect on program state and SSE is part of the x86_64
        // baseline; the address comes from a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((item as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

#[inline]
fn corners_of(vertices: &[Vec3], t: &[u32; 3]) -> [Vec3; 3] {
    [vertices[t[0] as usize], vertices[t[1] as usize], vertices[t[2] as usize]]
}

#[inline]
pub(crate) fn triangle_box_of(c: &[Vec3; 3]) -> Aabb3 {
    Aabb3::new(c[0].min(c[1]).min(c[2]), c[0].max(c[1]).max(c[2]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::Child;
    use crate::mesh::topology;

    /// A closed, outward tetrahedron.
    fn tetrahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let vertices = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        (vertices, vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]])
    }

    fn torus() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let data = kollide_testkit::shapes::torus(1.0, 0.35, 40, 20);
        (data.vertices, data.triangles)
    }

    #[test]
    fn mesh_is_send_sync_and_clone() {
        fn check<T: Send + Sync + Clone>() {}
        check::<TriMesh>();
    }

    #[test]
    fn lazy_topology_equals_the_eager_report() {
        let (v, t) = tetrahedron();
        let open = (v.clone(), t[..3].to_vec());
        let mut degenerate = tetrahedron();
        degenerate.1.push([1, 1, 2]);
        for (vertices, triangles) in [tetrahedron(), open, degenerate, torus()] {
            let eager =
                TopologyReport { self_intersecting_pairs: Some(0), ..topology(&triangles, vertices.len()) };
            let mesh = TriMesh::new(vertices, triangles).unwrap();
            assert_eq!(mesh.topology(), &eager);
            assert_eq!(mesh.is_solid(), eager.closed && eager.inconsistent_orientation_edges == 0);
            // A clone made after the first use carries the results along.
            assert_eq!(mesh.clone().topology(), &eager);
        }
    }

    #[test]
    fn solid_data_is_computed_on_first_use_and_counted_then() {
        let (vertices, triangles) = torus();
        let mesh = TriMesh::new(vertices, triangles).unwrap();
        let before = mesh.memory();
        assert_eq!((before.adjacency, before.solid), (0, 0));
        // A clone made before the first use computes its own.
        let copy = mesh.clone();
        assert!(mesh.is_solid());
        let after = mesh.memory();
        assert!(after.adjacency > 0 && after.solid > 0);
        assert_eq!(after.total(), before.total() + after.adjacency + after.solid);
        assert_eq!(copy.memory().solid, 0);
        assert!(copy.is_solid());
        assert_eq!(copy.memory(), after);
        // An open mesh stays at zero.
        let (v, t) = tetrahedron();
        let open = TriMesh::new(v, t[..3].to_vec()).unwrap();
        assert!(!open.is_solid());
        assert_eq!(open.memory().solid, 0);
        assert!(open.memory().adjacency > 0);
    }

    #[test]
    fn strip_meshes_build_over_runs_of_triangles() {
        // The torus lists its quads as two triangles each, ring after ring: runs of two quads.
        let (vertices, triangles) = torus();
        let starts = edge_strips(&triangles).unwrap();
        assert_eq!(starts.len(), triangles.len() / 4 + 1);
        assert_eq!(
            strip_bvh_settings(triangles.len(), starts.len() - 1),
            BvhSettings { max_leaf_size: 2, traversal_cost: 1.0 }
        );
        let mesh = TriMesh::new(vertices, triangles).unwrap();
        let order = mesh.bvh().leaf_order();
        for code in mesh.bvh().nodes().iter().flat_map(|node| node.child) {
            if let Child::Leaf { first, count } = Child::decode(code) {
                let ids = &order[first as usize..(first + count) as usize];
                let whole = ids.iter().all(|&id| (id & !3..(id | 3) + 1).all(|other| ids.contains(&other)));
                assert!(count <= 8 && whole, "leaf {ids:?}");
            }
        }
        // Runs follow shared edges: a strip of nine in runs of four (the last alone), the
        // tetrahedron's faces; a lone triangle and disjoint triangles make no runs.
        let strip: Vec<[u32; 3]> = (0..9).map(|k| [k, k + 1, k + 2]).collect();
        assert_eq!(edge_strips(&strip), Some(vec![0, 4, 8, 9]));
        assert_eq!(edge_strips(&tetrahedron().1), Some(vec![0, 4]));
        assert!(edge_strips(&[[0, 1, 2]]).is_none());
        let scattered: Vec<[u32; 3]> = (0..9).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect();
        assert!(edge_strips(&scattered).is_none());
    }

    #[test]
    fn set_vertices_recomputes_the_solid_data() {
        let (vertices, triangles) = torus();
        let mut mesh = TriMesh::new(vertices.clone(), triangles.clone()).unwrap();
        let first = mesh.solid().map(|s| (s.vertex_normals.clone(), s.orientation)).unwrap();
        assert_eq!(first.1, 1.0);
        // A reflection turns the mesh inside out: orientation and pseudo-normals change.
        let mirrored: Vec<Vec3> = vertices.iter().map(|p| Vec3::new(-p.x, p.y, p.z)).collect();
        mesh.set_vertices(mirrored.clone()).unwrap();
        let fresh = TriMesh::new(mirrored, triangles).unwrap();
        let (moved, rebuilt) = (mesh.solid().unwrap(), fresh.solid().unwrap());
        assert_eq!(moved.orientation, -1.0);
        assert_eq!(moved.orientation, rebuilt.orientation);
        assert_eq!(moved.vertex_normals, rebuilt.vertex_normals);
        assert_ne!(moved.vertex_normals, first.0);
        assert_eq!(mesh.topology(), fresh.topology());
    }
}
