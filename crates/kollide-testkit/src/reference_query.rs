//! Brute-force references for placed [`Shape`]s of every kind, independent of the query layer's
//! culling and dispatch: a placed shape is taken apart into convex pieces (each a
//! [`ConvexShape`] with its world placement) and solids (membership tests written from the
//! definitions), and every pair answer is an exhaustive scan over all pieces.
//!
//! - A convex shape is one piece; a mesh one [`ConvexShape::Triangle`] piece per triangle placed
//!   by the mesh's map; a sphere set one `Ball` piece per ball, placed by `map ·
//!   translation(center)`; a compound the pieces of each child, placements composed. Fields have
//!   no pieces (only membership).
//! - Membership ([`RefPlaced::contains`]): a convex shape by its `f64` closed form
//!   ([`RefShape::contains`]) or a zero `narrow::distance` to the point (triangles, hulls); a
//!   closed mesh ([`TriMesh::is_solid`]) by the generalized winding number of all its triangles in
//!   world space (`|w| > 0.5`, so reflections count too); an open mesh contains nothing (a
//!   surface has no inside); a sphere set when some ball contains the point mapped back by the
//!   inverse placement; a compound when some child does; a field when `value(map⁻¹ · p) ≤ 0`.
//! - Pairs: A and B intersect when some piece pair intersects (`narrow::intersects` over every
//!   pair whose boxes touch: the boxes come from the `f64` support functions of
//!   [`RefShape`], padded, so they only save time) or a point of one shape lies in the other's
//!   solid (every mesh vertex and one inner point per convex piece: the mean of its six axis
//!   support points). The distance is 0 when they intersect, else the least `narrow::distance`
//!   over every piece pair (pairs whose boxes are farther apart than the best so far skipped: a
//!   box distance is a lower bound).
//!
//! The narrow phase between two convex pieces is trusted here (it has its own references in
//! [`crate::reference_convex`]); what this module checks against is everything above it.

use std::sync::Arc;

use glam::{Affine3A, DVec3, Vec3, Vec3A};
use kollide::field::Field3;
use kollide::mesh::TriMesh;
use kollide::narrow::{self, GjkCache};
use kollide::query::Shape;
use kollide::shape::{Ball, ConvexShape, PlacedSupport, SupportMap, Triangle};

use crate::reference_convex::RefShape;
use crate::reference_mesh::winding_number;

/// One convex piece of a placed shape, with its world box.
#[derive(Clone, Debug)]
pub struct Piece {
    pub shape: ConvexShape,
    /// The piece's placement in the world.
    pub map: Affine3A,
    /// Whether the piece is a solid of its shape (convex shapes and balls) or a surface
    /// triangle of a mesh (whose inside, if any, is a [`Solid::Mesh`]).
    pub solid: bool,
    /// The world box, from the `f64` support function, padded by a millionth of its size.
    pub min: Vec3,
    pub max: Vec3,
}

/// One solid of a placed shape: the shape is the union of its solids (and its surface pieces).
#[derive(Clone)]
pub enum Solid {
    /// The convex piece with this index.
    Piece(usize),
    /// A closed mesh: its triangles in world space and their box.
    Mesh { triangles: Vec<[Vec3; 3]>, min: Vec3, max: Vec3 },
    /// A field through the inverse placement.
    Field { field: Arc<dyn Field3 + Send + Sync>, inverse: Affine3A },
}

/// A placed shape taken apart for the references.
#[derive(Clone)]
pub struct RefPlaced {
    pieces: Vec<Piece>,
    solids: Vec<Solid>,
    /// Points of the shape: every mesh vertex and one inner point per convex piece.
    points: Vec<Vec3>,
    min: Vec3,
    max: Vec3,
}

/// The world box of a convex shape placed by `map`, from the `f64` reference support function,
/// padded by `1e-6` of its size (plus a floor) so rounding never drops a touching pair.
fn piece_box(shape: &ConvexShape, map: &Affine3A) -> (Vec3, Vec3) {
    let r = RefShape::new(shape, map);
    let hi = DVec3::new(r.support_value(DVec3::X), r.support_value(DVec3::Y), r.support_value(DVec3::Z));
    let lo = -DVec3::new(r.support_value(-DVec3::X), r.support_value(-DVec3::Y), r.support_value(-DVec3::Z));
    let pad = 1e-6 * (1.0 + (hi - lo).max_element() + hi.abs().max(lo.abs()).max_element());
    ((lo - pad).as_vec3(), (hi + pad).as_vec3())
}

/// A point inside the placed convex shape: the mean of its six axis support points.
pub fn inner_point(shape: &ConvexShape, map: &Affine3A) -> Vec3 {
    let placed = PlacedSupport::new(shape, map);
    let sum = [Vec3A::X, Vec3A::Y, Vec3A::Z]
        .into_iter()
        .map(|d| placed.support(d) + placed.support(-d))
        .fold(Vec3A::ZERO, |s, p| s + p);
    (sum / 6.0).into()
}

fn boxes_touch(a: (Vec3, Vec3), b: (Vec3, Vec3)) -> bool {
    a.0.cmple(b.1).all() && b.0.cmple(a.1).all()
}

/// The distance between two boxes (0 when they touch): a lower bound of the distance between
/// anything inside them.
fn box_distance(a: (Vec3, Vec3), b: (Vec3, Vec3)) -> f32 {
    let gap = (a.0 - b.1).max(b.0 - a.1).max(Vec3::ZERO);
    gap.length()
}

/// The world box of the local box `[lo, hi]` placed by `map` (its eight corners).
fn mapped_box(lo: Vec3, hi: Vec3, map: &Affine3A) -> (Vec3, Vec3) {
    let mut min = Vec3::INFINITY;
    let mut max = Vec3::NEG_INFINITY;
    for i in 0..8 {
        let c = Vec3::new(
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        );
        let p = map.transform_point3(c);
        min = min.min(p);
        max = max.max(p);
    }
    let pad = 1e-6 * (1.0 + (max - min).max_element() + max.abs().max(min.abs()).max_element());
    (min - pad, max + pad)
}

impl RefPlaced {
    /// `shape` placed by `map`, taken apart.
    ///
    /// Panics for a compound with a compound child (compounds do not nest).
    pub fn new(shape: &Shape, map: &Affine3A) -> Self {
        let mut out = RefPlaced {
            pieces: Vec::new(),
            solids: Vec::new(),
            points: Vec::new(),
            min: Vec3::INFINITY,
            max: Vec3::NEG_INFINITY,
        };
        out.add(shape, map);
        for p in &out.pieces {
            out.min = out.min.min(p.min);
            out.max = out.max.max(p.max);
        }
        for s in &out.solids {
            if let Solid::Field { field, inverse } = s {
                let to_world = inverse.inverse();
                let (lo, hi) = match field.bounds() {
                    Some(b) => mapped_box(b.min, b.max, &to_world),
                    None => (Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX)),
                };
                out.min = out.min.min(lo);
                out.max = out.max.max(hi);
            }
        }
        out
    }

    fn add_piece(&mut self, shape: ConvexShape, map: Affine3A, solid: bool) {
        let (min, max) = piece_box(&shape, &map);
        self.points.push(inner_point(&shape, &map));
        if solid {
            self.solids.push(Solid::Piece(self.pieces.len()));
        }
        self.pieces.push(Piece { shape, map, solid, min, max });
    }

    fn add(&mut self, shape: &Shape, map: &Affine3A) {
        match shape {
            Shape::Convex(c) => self.add_piece(c.clone(), *map, true),
            Shape::Mesh(mesh) => self.add_mesh(mesh, map),
            Shape::SphereSet(set) => {
                for s in set.spheres() {
                    let at = *map * Affine3A::from_translation(s.center);
                    self.add_piece(ConvexShape::Ball(Ball::new(s.radius)), at, true);
                }
            }
            Shape::Field(field) => {
                self.solids.push(Solid::Field { field: field.clone(), inverse: map.inverse() });
            }
            Shape::Compound(compound) => {
                for (child, to_compound) in compound.children() {
                    assert!(!matches!(child, Shape::Compound(_)), "compounds do not nest");
                    self.add(child, &(*map * *to_compound));
                }
            }
        }
    }

    fn add_mesh(&mut self, mesh: &TriMesh, map: &Affine3A) {
        let (mut min, mut max) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        let mut world = Vec::with_capacity(mesh.triangle_count());
        for t in mesh.triangles() {
            // The triangle in mesh space, placed by the mesh's map.
            let local = t.map(|i| mesh.vertices()[i as usize]);
            world.push(local.map(|p| map.transform_point3(p)));
            self.add_piece(ConvexShape::Triangle(Triangle { points: local }), *map, false);
            let last = self.pieces.last().expect("just pushed");
            min = min.min(last.min);
            max = max.max(last.max);
        }
        self.points.extend(mesh.vertices().iter().map(|&v| map.transform_point3(v)));
        if mesh.is_solid() {
            self.solids.push(Solid::Mesh { triangles: world, min, max });
        }
    }

    /// The convex pieces.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The solids (the shape is their union together with its surface pieces).
    pub fn solids(&self) -> &[Solid] {
        &self.solids
    }

    /// Points of the shape: every mesh vertex and one inner point per convex piece.
    pub fn points(&self) -> &[Vec3] {
        &self.points
    }

    /// The world box (padded), from the pieces' support functions and the fields' bounds.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        (self.min, self.max)
    }

    /// The size of the shape: the diagonal of its world box.
    pub fn size(&self) -> f32 {
        (self.max - self.min).length()
    }

    /// Whether some solid of the shape contains the world point (boundary included). Surface
    /// pieces (the triangles of an open mesh) contain nothing.
    pub fn contains(&self, p: Vec3) -> bool {
        self.solids.iter().any(|s| self.solid_contains(s, p))
    }

    fn solid_contains(&self, solid: &Solid, p: Vec3) -> bool {
        match solid {
            Solid::Piece(i) => {
                let piece = &self.pieces[*i];
                boxes_touch((p, p), (piece.min, piece.max)) && piece_contains(piece, p)
            }
            Solid::Mesh { triangles, min, max } => {
                boxes_touch((p, p), (*min, *max)) && winding_number(triangles, p).abs() > 0.5
            }
            Solid::Field { field, inverse } => field.value(inverse.transform_point3(p)) <= 0.0,
        }
    }

    /// How deep the world point lies in the shape, as far as one solid shows it: the largest,
    /// over the solids containing `p`, of the distance from `p` to that solid's boundary (a
    /// convex piece: minus the separation of its contact with the point; a closed mesh: the
    /// distance to its nearest triangle). 0 when no solid contains `p`; fields count 0.
    pub fn depth_of(&self, p: Vec3) -> f32 {
        let point = ConvexShape::Ball(Ball::new(0.0));
        let at = Affine3A::from_translation(p);
        self.solids
            .iter()
            .filter(|s| self.solid_contains(s, p))
            .map(|s| match s {
                Solid::Piece(i) => {
                    let piece = &self.pieces[*i];
                    narrow::contact(&piece.shape, &piece.map, &point, &at, 0.0, &mut GjkCache::default())
                        .ok()
                        .flatten()
                        .map_or(0.0, |c| (-c.separation).max(0.0))
                }
                Solid::Mesh { triangles, .. } => crate::reference_mesh::distance(triangles, p),
                Solid::Field { .. } => 0.0,
            })
            .fold(0.0, f32::max)
    }

    /// The distance from the world point to the shape: 0 inside a solid, else the least
    /// distance to a piece (`narrow::distance` to the point). Panics for fields (no pieces).
    pub fn point_distance(&self, p: Vec3) -> f32 {
        assert!(!self.pieces.is_empty(), "fields have no pieces");
        if self.contains(p) {
            return 0.0;
        }
        self.pieces.iter().map(|piece| piece_point_distance(piece, p)).fold(f32::INFINITY, f32::min)
    }

    /// Points on the shape's surface (and in it) for sampled references: every triangle's
    /// corners, midpoints of its edges and its centroid; every convex piece's support points
    /// along the 26 directions of the unit cube's corners, edges and faces and its inner point.
    /// Fields give none.
    pub fn surface_samples(&self) -> Vec<Vec3> {
        let mut out = Vec::new();
        for piece in &self.pieces {
            if let (ConvexShape::Triangle(t), false) = (&piece.shape, piece.solid) {
                let c = t.points.map(|p| piece.map.transform_point3(p));
                out.extend(c);
                out.extend([(c[0] + c[1]) / 2.0, (c[1] + c[2]) / 2.0, (c[2] + c[0]) / 2.0]);
                out.push((c[0] + c[1] + c[2]) / 3.0);
                continue;
            }
            let placed = PlacedSupport::new(&piece.shape, &piece.map);
            for x in -1..=1 {
                for y in -1..=1 {
                    for z in -1..=1 {
                        if (x, y, z) != (0, 0, 0) {
                            let d = Vec3A::new(x as f32, y as f32, z as f32);
                            out.push(placed.support(d).into());
                        }
                    }
                }
            }
            out.push(inner_point(&piece.shape, &piece.map));
        }
        out
    }
}

/// The distance from the world point `p` to a piece (0 inside): `narrow::distance` to a ball of
/// radius 0 at `p`.
///
/// Not `narrow::project_point`: under a non-rigid similarity it projects onto a rounded shape's
/// core and calls points of the rounding outside (see the matrix test's `KNOWN_FAILURES`).
fn piece_point_distance(piece: &Piece, p: Vec3) -> f32 {
    let point = ConvexShape::Ball(Ball::new(0.0));
    narrow::distance(
        &piece.shape,
        &piece.map,
        &point,
        &Affine3A::from_translation(p),
        &mut GjkCache::default(),
    )
    .unwrap_or(f32::NAN)
}

/// Whether a solid piece contains the world point: the closed forms of [`RefShape::contains`]
/// (in `f64`, through the inverse placement) for the shapes that have them, a zero
/// [`piece_point_distance`] for triangles and hulls (rounded or not), whose reference membership
/// is a dense direction search too slow for sampling.
fn piece_contains(piece: &Piece, p: Vec3) -> bool {
    use ConvexShape as S;
    match piece.shape {
        S::Triangle(_) | S::Hull(_) | S::RoundedTriangle(_) | S::RoundedHull(_) => {
            piece_point_distance(piece, p) <= 0.0
        }
        _ if piece.map.matrix3.determinant() != 0.0 => {
            RefShape::new(&piece.shape, &piece.map).contains(p.as_dvec3())
        }
        _ => piece_point_distance(piece, p) <= 0.0,
    }
}

/// The pieces of `shape` placed by `map` (see the module).
pub fn pieces(shape: &Shape, map: &Affine3A) -> Vec<Piece> {
    RefPlaced::new(shape, map).pieces
}

/// Whether the solid `shape` placed by `map` contains the world point `p` (see the module).
pub fn contains(shape: &Shape, map: &Affine3A, p: Vec3) -> bool {
    RefPlaced::new(shape, map).contains(p)
}

/// Some point of `a` in `b`'s solid: every point of [`RefPlaced::points`].
fn some_point_inside(a: &RefPlaced, b: &RefPlaced) -> bool {
    a.points.iter().any(|&p| boxes_touch((p, p), b.bounds()) && b.contains(p))
}

/// Whether two placed shapes (fields excluded) touch or overlap, by brute force.
pub fn intersects(a: &RefPlaced, b: &RefPlaced) -> bool {
    if !boxes_touch(a.bounds(), b.bounds()) {
        return false;
    }
    let pair_touches = a.pieces.iter().any(|p| {
        boxes_touch((p.min, p.max), b.bounds())
            && b.pieces.iter().any(|q| {
                boxes_touch((p.min, p.max), (q.min, q.max))
                    && narrow::intersects(&p.shape, &p.map, &q.shape, &q.map, &mut GjkCache::default())
                        .unwrap_or(false)
            })
    });
    pair_touches || some_point_inside(a, b) || some_point_inside(b, a)
}

/// The distance between two placed shapes (fields excluded), by brute force: 0 when they
/// intersect, else the least distance over every piece pair.
pub fn distance(a: &RefPlaced, b: &RefPlaced) -> f32 {
    if intersects(a, b) {
        return 0.0;
    }
    let mut pairs: Vec<(f32, usize, usize)> = Vec::with_capacity(a.pieces.len() * b.pieces.len());
    for (i, p) in a.pieces.iter().enumerate() {
        for (j, q) in b.pieces.iter().enumerate() {
            pairs.push((box_distance((p.min, p.max), (q.min, q.max)), i, j));
        }
    }
    pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut best = f32::INFINITY;
    for (lower, i, j) in pairs {
        if lower >= best {
            break;
        }
        let (p, q) = (&a.pieces[i], &b.pieces[j]);
        let d = narrow::distance(&p.shape, &p.map, &q.shape, &q.map, &mut GjkCache::default())
            .expect("valid pieces and finite placements");
        best = best.min(d);
    }
    best
}

/// How deep the deepest evidence of an overlap of `a` and `b` goes (0 when there is none): the
/// largest penetration depth of an intersecting piece pair (`narrow::contact`), and the largest
/// depth of a point of one shape inside the other ([`RefPlaced::depth_of`]). A pair reported as
/// intersecting with evidence below a tolerance touches within that tolerance.
pub fn overlap_depth(a: &RefPlaced, b: &RefPlaced) -> f32 {
    let mut depth = 0.0f32;
    for p in &a.pieces {
        for q in &b.pieces {
            if boxes_touch((p.min, p.max), (q.min, q.max))
                && let Ok(Some(c)) =
                    narrow::contact(&p.shape, &p.map, &q.shape, &q.map, 0.0, &mut GjkCache::default())
            {
                depth = depth.max(-c.separation);
            }
        }
    }
    for &p in &a.points {
        depth = depth.max(b.depth_of(p));
    }
    for &p in &b.points {
        depth = depth.max(a.depth_of(p));
    }
    depth
}

/// The least separation of the narrow-phase contacts of every pair of pieces (`+∞` when no pair
/// is within 0): for shapes made of convex pieces, the depth of their deepest pair of parts.
pub fn deepest_pair_separation(a: &RefPlaced, b: &RefPlaced) -> f32 {
    let mut best = f32::INFINITY;
    for p in &a.pieces {
        for q in &b.pieces {
            if boxes_touch((p.min, p.max), (q.min, q.max))
                && let Ok(Some(c)) =
                    narrow::contact(&p.shape, &p.map, &q.shape, &q.map, 0.0, &mut GjkCache::default())
            {
                best = best.min(c.separation);
            }
        }
    }
    best
}

/// What a sampled reference saw of two placed shapes (fields included).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampled {
    /// Samples that lie in both shapes.
    pub common: usize,
    /// Samples looked at.
    pub total: usize,
}

/// Samples for two placed shapes of any kinds: an `n³` grid over the common box of their world
/// boxes (a sample counts when both contain it), and the surface samples of each
/// ([`RefPlaced::surface_samples`]) in the common box (a sample of A's surface lies in A, so it
/// counts when B contains it, and the other way round). Any common sample proves an overlap.
pub fn sampled_overlap(a: &RefPlaced, b: &RefPlaced, n: usize) -> Sampled {
    let lo = a.min.max(b.min);
    let hi = a.max.min(b.max);
    let mut out = Sampled::default();
    if !lo.cmple(hi).all() {
        return out;
    }
    let n = n.max(2);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let f = Vec3::new(i as f32, j as f32, k as f32) / (n - 1) as f32;
                let p = lo + (hi - lo) * f;
                out.total += 1;
                if a.contains(p) && b.contains(p) {
                    out.common += 1;
                }
            }
        }
    }
    let in_box = |p: &Vec3| p.cmpge(lo).all() && p.cmple(hi).all();
    for p in a.surface_samples().iter().filter(|p| in_box(p)) {
        out.total += 1;
        if b.contains(*p) {
            out.common += 1;
        }
    }
    for p in b.surface_samples().iter().filter(|p| in_box(p)) {
        out.total += 1;
        if a.contains(*p) {
            out.common += 1;
        }
    }
    out
}
