//! Convex decomposition of a polygon with holes, for construction time (it allocates); the method
//! is in [`decompose_polygon2`]'s documentation.

mod ears;

use std::ops::Range;

use glam::Vec2;

use self::ears::{Loop, SharedSide, TriangleSide};
use super::point_in_polygon_winding;
use crate::primitive::orient2d;

/// Convex pieces stored flat: piece `i` is
/// `vertices[ranges[i].start as usize..ranges[i].end as usize]`, counter-clockwise and strictly
/// convex (every three consecutive vertices turn left; no repeated vertices).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvexPieces2 {
    /// The vertices of all pieces, piece after piece.
    pub vertices: Vec<Vec2>,
    /// Where each piece's vertices lie in `vertices`.
    pub ranges: Vec<Range<u32>>,
}

impl ConvexPieces2 {
    /// The number of pieces.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether there are no pieces.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The vertices of piece `i`; an empty slice when `i >= len()` or the range is out of bounds.
    pub fn piece(&self, i: usize) -> &[Vec2] {
        self.ranges.get(i).and_then(|r| self.vertices.get(r.start as usize..r.end as usize)).unwrap_or(&[])
    }

    /// The pieces in order, as in [`piece`](Self::piece).
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[Vec2]> + '_ {
        (0..self.len()).map(|i| self.piece(i))
    }
}

/// A ring of [`decompose_polygon2`]'s input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingId {
    /// The outer ring.
    Outer,
    /// The hole at this index of `holes`.
    Hole(usize),
}

/// A vertex of [`decompose_polygon2`]'s input, or the edge that starts there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingVertex {
    /// The ring.
    pub ring: RingId,
    /// The index of the vertex in that ring's input slice.
    pub index: usize,
}

/// Why [`decompose_polygon2`] refused its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecomposeError {
    /// A coordinate is NaN or infinite (the first such vertex, outer ring first).
    NonFinite(RingVertex),
    /// The outer ring has fewer than 3 distinct vertices.
    TooFewVertices,
    /// The outer ring encloses no area: its vertices are collinear, or it doubles back on itself.
    ZeroArea,
    /// Two edges cross: their interiors meet in a single point. Each edge is named by the input
    /// vertex it starts at, after repeated and collinear vertices are dropped (so it may span
    /// several input edges along one line).
    SelfIntersection(RingVertex, RingVertex),
    /// A vertex of this hole lies strictly outside the outer ring.
    HoleOutside(usize),
    /// A vertex of hole `hole` lies strictly inside hole `other`.
    HoleInsideHole {
        /// The hole inside.
        hole: usize,
        /// The hole around it.
        other: usize,
    },
    /// No bridge from this hole to the outer ring passed the exact visibility test: the rings touch
    /// or overlap along edges in a way the method cannot resolve (not seen on valid input).
    NoBridge(usize),
    /// Ear clipping found no ear: the rings touch or overlap along edges in a way the method
    /// cannot resolve, or they wind around some region more than once without crossing.
    NoEar,
    /// More than [`MAX_DECOMPOSE_VERTICES`] vertices in all (pieces are indexed by `u32`).
    TooManyVertices,
}

/// The most vertices, outer ring and holes together, that [`decompose_polygon2`] accepts: its
/// output holds at most three vertices per triangle, and triangles number fewer than the
/// vertices plus twice the holes, all indexed by `u32`.
pub const MAX_DECOMPOSE_VERTICES: usize = (u32::MAX / 8) as usize;

impl std::fmt::Display for DecomposeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NonFinite(v) => write!(f, "vertex {} of {:?} is not finite", v.index, v.ring),
            Self::TooFewVertices => write!(f, "the outer ring has fewer than 3 distinct vertices"),
            Self::ZeroArea => write!(f, "the outer ring encloses no area"),
            Self::SelfIntersection(a, b) => write!(
                f,
                "the edge from vertex {} of {:?} crosses the edge from vertex {} of {:?}",
                a.index, a.ring, b.index, b.ring
            ),
            Self::HoleOutside(h) => write!(f, "hole {h} is not inside the outer ring"),
            Self::HoleInsideHole { hole, other } => write!(f, "hole {hole} lies inside hole {other}"),
            Self::NoBridge(h) => write!(f, "no bridge from hole {h} to the outer ring was found"),
            Self::NoEar => write!(f, "ear clipping found no ear (the rings touch or overlap)"),
            Self::TooManyVertices => write!(f, "more than {MAX_DECOMPOSE_VERTICES} vertices"),
        }
    }
}

impl std::error::Error for DecomposeError {}

/// Signed area of the vertex loop `ring` (implicitly closed), by the shoelace formula summed in
/// `f64` about the first vertex: positive for a counter-clockwise loop, negative for a clockwise
/// one. Fewer than 3 vertices: `0`. A non-finite coordinate gives a non-finite result.
pub fn polygon_area2(ring: &[Vec2]) -> f32 {
    let Some(&first) = ring.first() else { return 0.0 };
    let o = first.as_dvec2();
    let mut twice = 0.0;
    for w in ring.windows(2) {
        twice += (w[0].as_dvec2() - o).perp_dot(w[1].as_dvec2() - o);
    }
    (0.5 * twice) as f32
}

/// Decomposes the polygon bounded by `outer`, less the `holes`, into convex pieces that tile it:
/// strictly convex and counter-clockwise (see [`ConvexPieces2`]), with pairwise disjoint interiors,
/// their union the closed polygon less any zero-width spikes.
///
/// # Input
///
/// Rings are vertex loops, implicitly closed, in either winding. They must describe a polygon
/// with holes: rings do not cross, holes lie inside the outer ring and outside one another. Rings
/// may touch at points and along edges (a hole touching the outer ring or another hole, a ring
/// touching itself); repeated vertices, collinear vertices and zero-width spikes are allowed
/// (spikes are dropped first, so a spike may even cross other rings). A hole that encloses no area
/// (fewer than 3 distinct vertices, all collinear, or a back-and-forth path) removes nothing and is
/// ignored.
///
/// Errors ([`DecomposeError`]): a non-finite coordinate; an outer ring with fewer than 3 distinct
/// vertices or no area; two edges that cross; a hole with a vertex strictly outside the outer ring
/// or strictly inside another hole; more than [`MAX_DECOMPOSE_VERTICES`] vertices. Invalid input
/// that these checks miss (holes that overlap with no vertex strictly inside the other, equal
/// holes, rings that cross only through a shared vertex) leaves a region wound twice or not at
/// all; in every such case tested the ear clipping then stops with [`DecomposeError::NoEar`], but
/// the pieces of undetected invalid input are unspecified. Nothing panics.
///
/// # Method
///
/// Four steps, every geometric decision an exact [`orient2d`] sign on the given `f32` coordinates:
///
/// 1. **Clean and check.** Each ring drops repeated vertices and vertices collinear with their two
///    neighbours (straight vertices and the tips of zero-width spikes). Then no two edges of any
///    rings may cross (a sweep over the edges sorted by `x`), and one vertex of each hole off the
///    other ring's boundary decides whether it lies inside the outer ring and outside the other
///    holes. The outer ring is made counter-clockwise and the holes clockwise (the turn at an
///    extreme vertex gives the winding), so that the polygon lies left of every directed edge.
/// 2. **Bridge the holes** into the outer ring, the hole reaching farthest to `+x` first (Eberly,
///    "Triangulation by Ear Clipping", Geometric Tools, 2002): a horizontal ray from the hole's
///    rightmost vertex `M` meets the nearest edge; its endpoint farther right, or the reflex vertex
///    hiding it that is closest in angle to the ray, is the bridge end `P`. That choice is made in
///    `f64` and then proved exactly (the open segment `M P` meets no edge, and leaves `M` and `P`
///    into the polygon); if the proof fails, the vertices are tried in order of distance. A hole
///    touching the ring at `M` gets a zero-length bridge there (an edge through `M` is split at
///    `M`). The ring then runs `.. P, M, (the hole), M, P ..`, a weakly simple polygon.
/// 3. **Clip ears.** A convex vertex `v` (between `p` and `n`) is an ear when no other edge of the
///    ring meets the open triangle `p v n`, an exact segment/open-triangle test, so the two sides of
///    a bridge, rings that touch and collinear overlaps are decided exactly. Vertices that become
///    collinear with their neighbours are dropped as in step 1. Candidates wait on a stack and are
///    re-tested when a neighbour is clipped (a full re-scan only when the stack runs dry).
/// 4. **Merge** (Hertel and Mehlhorn, "Fast triangulation of simple polygons", 1983): the triangles
///    are joined across their shared diagonals, bridges included, while neither end of the
///    diagonal turns reflex (straight ends are then dropped from the pieces). Every diagonal left
///    is essential, which bounds the number of pieces by four times the minimum.
///
/// Cost: `O(n²)` time for `n` vertices in all when the candidate stack does not run dry (each
/// re-scan costs `O(n²)` more), `O(n)` memory.
pub fn decompose_polygon2(outer: &[Vec2], holes: &[&[Vec2]]) -> Result<ConvexPieces2, DecomposeError> {
    if outer.len() + holes.iter().map(|h| h.len()).sum::<usize>() > MAX_DECOMPOSE_VERTICES {
        return Err(DecomposeError::TooManyVertices);
    }
    check_finite(outer, RingId::Outer)?;
    for (k, hole) in holes.iter().enumerate() {
        check_finite(hole, RingId::Hole(k))?;
    }
    let mut outer_ring = Ring::clean(outer, RingId::Outer);
    if outer_ring.points.len() < 3 {
        return Err(if has_three_distinct(outer) {
            DecomposeError::ZeroArea
        } else {
            DecomposeError::TooFewVertices
        });
    }
    let mut hole_rings: Vec<Ring> = (0..holes.len())
        .map(|k| Ring::clean(holes[k], RingId::Hole(k)))
        .filter(|ring| ring.points.len() >= 3)
        .collect();
    find_crossing(&outer_ring, &hole_rings)?;
    outer_ring.make_ccw(true);
    for ring in &mut hole_rings {
        ring.make_ccw(false);
    }
    check_nesting(&outer_ring, &hole_rings)?;

    // Bridge the holes reaching farthest to +x first: a ray from the rightmost vertex of a hole
    // then meets only the outer ring and holes already merged into it.
    let mut order: Vec<usize> = (0..hole_rings.len()).collect();
    order.sort_by(|&a, &b| hole_rings[b].rightmost().total_cmp(&hole_rings[a].rightmost()));
    let total = outer_ring.points.len() + hole_rings.iter().map(|r| r.points.len() + 2).sum::<usize>();
    let mut ring = Loop::new(&outer_ring.points, total);
    for (k, &h) in order.iter().enumerate() {
        let pending: Vec<&[Vec2]> = order[k..].iter().map(|&i| hole_rings[i].points.as_slice()).collect();
        ring.bridge(&pending, k as u32).ok_or(DecomposeError::NoBridge(hole_rings[h].hole_index()))?;
    }
    let (triangles, shared) = ring.clip_ears(order.len())?;
    Ok(merge_convex(&ring.pos, &triangles, &shared))
}

fn check_finite(ring: &[Vec2], id: RingId) -> Result<(), DecomposeError> {
    match ring.iter().position(|p| !p.is_finite()) {
        Some(index) => Err(DecomposeError::NonFinite(RingVertex { ring: id, index })),
        None => Ok(()),
    }
}

fn has_three_distinct(points: &[Vec2]) -> bool {
    let Some(&a) = points.first() else { return false };
    let Some(&b) = points.iter().find(|&&p| p != a) else { return false };
    points.iter().any(|&p| p != a && p != b)
}

/// A cleaned input ring: no repeated vertices, no three consecutive vertices collinear.
struct Ring {
    id: RingId,
    points: Vec<Vec2>,
    /// The input index of each kept vertex.
    source: Vec<usize>,
}

impl Ring {
    /// Drops every vertex collinear with its neighbours (repeats included), until none is left:
    /// a stack pass over the loop, then the same test across the seam where it closes.
    fn clean(input: &[Vec2], id: RingId) -> Ring {
        let mut kept: Vec<(Vec2, usize)> = Vec::with_capacity(input.len());
        for (i, &p) in input.iter().enumerate() {
            kept.push((p, i));
            loop {
                let n = kept.len();
                if n >= 2 && kept[n - 1].0 == kept[n - 2].0 {
                    kept.pop();
                } else if n >= 3 && orient2d(kept[n - 3].0, kept[n - 2].0, kept[n - 1].0) == 0 {
                    kept.remove(n - 2);
                } else {
                    break;
                }
            }
        }
        let (mut lo, mut hi) = (0, kept.len());
        while hi - lo >= 3 {
            let (a, b, c, d) = (kept[hi - 2].0, kept[hi - 1].0, kept[lo].0, kept[lo + 1].0);
            if b == c || orient2d(a, b, c) == 0 {
                hi -= 1;
            } else if orient2d(b, c, d) == 0 {
                lo += 1;
            } else {
                break;
            }
        }
        let kept = &kept[lo..hi];
        Ring { id, points: kept.iter().map(|k| k.0).collect(), source: kept.iter().map(|k| k.1).collect() }
    }

    /// Reverses the ring unless its winding is already counter-clockwise (`ccw`) or clockwise.
    /// The winding is the turn at the leftmost (then lowest) vertex, an extreme point of the loop,
    /// where a loop that does not cross itself turns the way it winds.
    fn make_ccw(&mut self, ccw: bool) {
        let n = self.points.len();
        let lowest = (0..n)
            .min_by(|&a, &b| {
                let (p, q) = (self.points[a], self.points[b]);
                p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y))
            })
            .unwrap_or(0);
        let turn =
            orient2d(self.points[(lowest + n - 1) % n], self.points[lowest], self.points[(lowest + 1) % n]);
        if (turn > 0) != ccw {
            self.points.reverse();
            self.source.reverse();
        }
    }

    /// The input index of a hole.
    fn hole_index(&self) -> usize {
        match self.id {
            RingId::Hole(k) => k,
            RingId::Outer => usize::MAX,
        }
    }

    fn rightmost(&self) -> f32 {
        self.points.iter().fold(f32::NEG_INFINITY, |m, p| m.max(p.x))
    }

    fn edge(&self, i: usize) -> (Vec2, Vec2) {
        (self.points[i], self.points[(i + 1) % self.points.len()])
    }
}

/// The first pair of crossing edges over all rings, by a sweep over the edges sorted by their
/// lowest `x` (only edges whose `x` ranges overlap are tested).
fn find_crossing(outer: &Ring, holes: &[Ring]) -> Result<(), DecomposeError> {
    let rings: Vec<&Ring> = std::iter::once(outer).chain(holes).collect();
    let mut edges: Vec<(f32, f32, usize, usize)> = Vec::new();
    for (r, ring) in rings.iter().enumerate() {
        for i in 0..ring.points.len() {
            let (a, b) = ring.edge(i);
            edges.push((a.x.min(b.x), a.x.max(b.x), r, i));
        }
    }
    edges.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (k, &(_, hi, r, i)) in edges.iter().enumerate() {
        let (a, b) = rings[r].edge(i);
        for &(lo2, _, r2, i2) in &edges[k + 1..] {
            if lo2 > hi {
                break;
            }
            let (c, d) = rings[r2].edge(i2);
            if a.y.max(b.y) < c.y.min(d.y) || c.y.max(d.y) < a.y.min(b.y) {
                continue;
            }
            if orient2d(a, b, c) * orient2d(a, b, d) < 0 && orient2d(c, d, a) * orient2d(c, d, b) < 0 {
                let at = |ring: &Ring, i: usize| RingVertex { ring: ring.id, index: ring.source[i] };
                return Err(DecomposeError::SelfIntersection(at(rings[r], i), at(rings[r2], i2)));
            }
        }
    }
    Ok(())
}

/// Where a point lies relative to a ring.
#[derive(PartialEq)]
enum Location {
    Inside,
    Boundary,
    Outside,
}

fn locate(p: Vec2, ring: &[Vec2]) -> Location {
    let n = ring.len();
    let on_edge = (0..n).any(|i| {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        p.cmpge(a.min(b)).all() && p.cmple(a.max(b)).all() && orient2d(a, b, p) == 0
    });
    if on_edge {
        Location::Boundary
    } else if point_in_polygon_winding(p, ring) {
        Location::Inside
    } else {
        Location::Outside
    }
}

/// Every hole inside the outer ring and outside the other holes. Rings do not cross (checked
/// before), so one vertex off the other ring's boundary decides on which side a whole ring lies.
fn check_nesting(outer: &Ring, holes: &[Ring]) -> Result<(), DecomposeError> {
    let side_of = |ring: &Ring, other: &Ring| {
        ring.points.iter().map(|&p| locate(p, &other.points)).find(|l| *l != Location::Boundary)
    };
    if let Some(hole) = holes.iter().find(|hole| side_of(hole, outer) == Some(Location::Outside)) {
        return Err(DecomposeError::HoleOutside(hole.hole_index()));
    }
    for hole in holes {
        for other in holes.iter().filter(|other| other.id != hole.id) {
            if side_of(hole, other) == Some(Location::Inside) {
                return Err(DecomposeError::HoleInsideHole {
                    hole: hole.hole_index(),
                    other: other.hole_index(),
                });
            }
        }
    }
    Ok(())
}

/// Hertel–Mehlhorn: joins the triangles across shared sides while both ends of the side stay
/// convex, then stores the pieces flat without their straight vertices.
fn merge_convex(pos: &[Vec2], triangles: &[[u32; 3]], shared: &[SharedSide]) -> ConvexPieces2 {
    let at = |v: u32| pos[v as usize];
    let mut pieces: Vec<Vec<u32>> = triangles.iter().map(|t| t.to_vec()).collect();
    let mut parent: Vec<u32> = (0..triangles.len() as u32).collect();
    fn root(parent: &mut [u32], mut t: u32) -> u32 {
        while parent[t as usize] != t {
            parent[t as usize] = parent[parent[t as usize] as usize];
            t = parent[t as usize];
        }
        t
    }
    let find_side = |piece: &[u32], side: TriangleSide| {
        (0..piece.len()).find(|&i| piece[i] == side.from && piece[(i + 1) % piece.len()] == side.to)
    };
    for s in shared {
        let (ra, rb) = (root(&mut parent, s.a.triangle), root(&mut parent, s.b.triangle));
        if ra == rb {
            continue;
        }
        let (pa, pb) = (&pieces[ra as usize], &pieces[rb as usize]);
        let (Some(ia), Some(ib)) = (find_side(pa, s.a), find_side(pb, s.b)) else { continue };
        let (la, lb) = (pa.len(), pb.len());
        // a: .. a0 → u → w → a1 ..;  b: .. b0 → w' → u' → b1 .. (w' on w, u' on u).
        let (u, w) = (pa[ia], pa[(ia + 1) % la]);
        let (a0, a1) = (pa[(ia + la - 1) % la], pa[(ia + 2) % la]);
        let (b0, b1) = (pb[(ib + lb - 1) % lb], pb[(ib + 2) % lb]);
        // The union is convex when neither end of the side turns right. A straight end stays in
        // the merged piece, so that sides ending there can still be found, and is dropped from
        // the output.
        if orient2d(at(a0), at(u), at(b1)) < 0 || orient2d(at(b0), at(w), at(a1)) < 0 {
            continue;
        }
        // w, a1 .. a0, u, then b1 .. b0.
        let mut merged = Vec::with_capacity(la + lb - 2);
        merged.extend((1..=la).map(|k| pa[(ia + k) % la]));
        merged.extend((2..lb).map(|k| pb[(ib + k) % lb]));
        pieces[ra as usize] = merged;
        pieces[rb as usize] = Vec::new();
        parent[rb as usize] = ra;
    }
    let mut out = ConvexPieces2::default();
    for piece in pieces.iter().filter(|p| !p.is_empty()) {
        let start = out.vertices.len() as u32;
        let n = piece.len();
        let turns =
            |k: usize| orient2d(at(piece[(k + n - 1) % n]), at(piece[k]), at(piece[(k + 1) % n])) != 0;
        out.vertices.extend((0..n).filter(|&k| turns(k)).map(|k| at(piece[k])));
        out.ranges.push(start..out.vertices.len() as u32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn cleaning_drops_repeats_straight_vertices_and_spikes_across_the_seam() {
        // Index 0 is straight, the last two vertices repeat, a spike tip sits at index 3.
        let ring = [
            v(1.0, 0.0),
            v(2.0, 0.0),
            v(2.0, 2.0),
            v(2.0, 3.0),
            v(2.0, 2.0),
            v(0.0, 2.0),
            v(0.0, 0.0),
            v(0.0, 0.0),
        ];
        let clean = Ring::clean(&ring, RingId::Outer);
        assert_eq!(clean.points, [v(2.0, 0.0), v(2.0, 2.0), v(0.0, 2.0), v(0.0, 0.0)]);
        assert_eq!(clean.source, [1, 4, 5, 6]);
        // A spike whose tip is the first vertex, a straight vertex at the end.
        let ring =
            [v(3.0, 0.0), v(2.0, 0.0), v(2.0, 2.0), v(0.0, 2.0), v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0)];
        let clean = Ring::clean(&ring, RingId::Outer);
        assert_eq!(clean.points, [v(2.0, 0.0), v(2.0, 2.0), v(0.0, 2.0), v(0.0, 0.0)]);
        // Collinear loops vanish.
        assert!(Ring::clean(&[v(0.0, 0.0), v(1.0, 1.0), v(3.0, 3.0)], RingId::Outer).points.len() < 3);
    }

    #[test]
    fn winding_is_normalised() {
        let mut ring = Ring::clean(&[v(0.0, 0.0), v(0.0, 1.0), v(1.0, 0.0)], RingId::Outer);
        ring.make_ccw(true);
        assert_eq!(ring.points, [v(1.0, 0.0), v(0.0, 1.0), v(0.0, 0.0)]);
        ring.make_ccw(false);
        assert_eq!(ring.points, [v(0.0, 0.0), v(0.0, 1.0), v(1.0, 0.0)]);
    }
}
