//! Convex decomposition of a polygon with holes, for construction time (it allocates).
//!
//! [`decompose_polygon2`] runs four steps, every geometric decision an exact
//! [`orient2d`] sign on the given `f32` coordinates:
//!
//! 1. **Clean and check.** Each ring drops repeated vertices and vertices collinear with their two
//!    neighbours (straight vertices and the tips of zero-width spikes). The cleaned rings must not
//!    cross (no two edges whose interiors meet in a single point), every hole must lie inside the
//!    outer ring and outside the other holes. The outer ring is made counter-clockwise and the
//!    holes clockwise, so that the polygon lies on the left of every directed edge.
//! 2. **Bridge the holes** into the outer ring, the hole reaching farthest to `+x` first (Eberly,
//!    "Triangulation by Ear Clipping", Geometric Tools, 2002): a horizontal ray from the hole's
//!    rightmost vertex `M` meets the nearest edge; its endpoint farther right, or the reflex vertex
//!    hiding it that is closest in angle to the ray, is the bridge end `P`. That choice is made in
//!    `f64` and then proved exactly (the open segment `M P` meets no edge, and leaves `M` and `P`
//!    into the polygon); if the proof fails, the vertices are tried in order of distance. The ring
//!    then runs `.. P, M, (the hole), M, P ..`, a weakly simple polygon.
//! 3. **Clip ears.** A convex vertex `v` (between `p` and `n`) is an ear when no other edge of the
//!    ring meets the open triangle `p v n` (an exact segment/open-triangle test, so vertices shared
//!    by a bridge's two sides, holes touching the outer ring and collinear overlaps are decided
//!    exactly). Vertices that become collinear with their neighbours are dropped as in step 1.
//!    Candidates are kept on a stack and re-tested only when a neighbour is clipped, which makes
//!    the clipping `O(n²)` for `n` vertices (a full re-scan, needed only when the stack runs dry
//!    while ears exist elsewhere, is rare).
//! 4. **Merge** (Hertel and Mehlhorn, "Fast triangulation of simple polygons", 1983): the
//!    triangles are joined across their shared diagonals (and across the bridges) while both ends
//!    of the diagonal stay strictly convex. Every diagonal left is then essential, which bounds the
//!    piece count by four times the minimum number of convex pieces.
//!
//! The pieces tile the polygon: they are strictly convex, counter-clockwise, their interiors are
//! disjoint and their union is the closed polygon, less the zero-width spikes that step 1 drops.

use std::ops::Range;

use glam::{DVec2, Vec2};

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
        self.ranges
            .get(i)
            .and_then(|r| self.vertices.get(r.start as usize..r.end as usize))
            .unwrap_or(&[])
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
}

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

/// Decomposes the polygon bounded by `outer`, less the `holes`, into convex pieces (see the
/// [module documentation](self) for the method and [`ConvexPieces2`] for the output).
///
/// Rings are vertex loops, implicitly closed, in either winding. The input must describe a
/// polygon with holes: rings do not cross, holes lie inside the outer ring and outside one
/// another. Rings may touch at points and along edges (a hole touching the outer ring or another
/// hole, a ring touching itself); repeated vertices, collinear vertices and zero-width spikes are
/// allowed (spikes are dropped). A hole that encloses no area (fewer than 3 distinct vertices,
/// collinear, or a back-and-forth path) removes nothing and is ignored.
///
/// Errors ([`DecomposeError`]): a non-finite coordinate; an outer ring with fewer than 3 distinct
/// vertices or no area; two edges that cross; a hole with a vertex strictly outside the outer
/// ring or strictly inside another hole. Input that breaks the rules without being detected
/// (rings that cross only through shared vertices, or a hole repeated exactly) gives
/// [`DecomposeError::NoEar`] or pieces following the nonzero winding rule; it never panics.
///
/// Cost: `O(n²)` time for `n` vertices in all, `O(n)` memory.
pub fn decompose_polygon2(outer: &[Vec2], holes: &[&[Vec2]]) -> Result<ConvexPieces2, DecomposeError> {
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
    for hole in holes {
        if side_of(hole, outer) == Some(Location::Outside) {
            return Err(DecomposeError::HoleOutside(hole.hole_index()));
        }
        for other in holes.iter().filter(|other| other.id != hole.id) {
            if side_of(hole, other) == Some(Location::Inside) {
                return Err(DecomposeError::HoleInsideHole { hole: hole.hole_index(), other: other.hole_index() });
            }
        }
    }
    Ok(())
}

/// What lies across a ring edge.
#[derive(Clone, Copy)]
enum Across {
    /// The outside of the polygon.
    Boundary,
    /// A triangle already clipped, whose side runs `from → to`.
    Triangle(TriangleSide),
    /// The other side of a hole's bridge.
    Bridge(u32),
}

/// Side `from → to` (counter-clockwise) of triangle `triangle`.
#[derive(Clone, Copy)]
struct TriangleSide {
    triangle: u32,
    from: u32,
    to: u32,
}

/// Two triangles sharing a side: `a.from` lies where `b.to` does and `a.to` where `b.from` does.
#[derive(Clone, Copy)]
struct SharedSide {
    a: TriangleSide,
    b: TriangleSide,
}

/// The ring being triangulated, as a doubly linked list over node indices; `across[i]` tells
/// what lies across the edge from node `i` to `next[i]`.
struct Loop {
    pos: Vec<Vec2>,
    prev: Vec<u32>,
    next: Vec<u32>,
    across: Vec<Across>,
    alive: Vec<bool>,
    live: usize,
    start: u32,
}

impl Loop {
    fn new(points: &[Vec2], capacity: usize) -> Loop {
        let n = points.len() as u32;
        let mut pos = Vec::with_capacity(capacity);
        pos.extend_from_slice(points);
        Loop {
            pos,
            prev: (0..n).map(|i| (i + n - 1) % n).collect(),
            next: (0..n).map(|i| (i + 1) % n).collect(),
            across: vec![Across::Boundary; points.len()],
            alive: vec![true; points.len()],
            live: points.len(),
            start: 0,
        }
    }

    /// The live nodes, in ring order from `start`.
    fn nodes(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.live);
        let mut v = self.start;
        for _ in 0..self.live {
            out.push(v);
            v = self.next[v as usize];
        }
        out
    }

    fn at(&self, v: u32) -> Vec2 {
        self.pos[v as usize]
    }

    fn turn(&self, v: u32) -> i32 {
        let i = v as usize;
        orient2d(self.at(self.prev[i]), self.pos[i], self.at(self.next[i]))
    }

    /// Removes `v`; the edge now joining its neighbours has `across` on its far side.
    fn unlink(&mut self, v: u32, across: Across) {
        let (p, n) = (self.prev[v as usize], self.next[v as usize]);
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
        self.across[p as usize] = across;
        self.alive[v as usize] = false;
        self.live -= 1;
        if self.start == v {
            self.start = n;
        }
    }

    /// Drops the nodes of `stack` (and then their neighbours) that are collinear with their
    /// neighbours: repeats, straight vertices and spike tips. A repeat keeps what lies across the
    /// edge it duplicates.
    fn settle(&mut self, stack: &mut Vec<u32>) {
        while let Some(v) = stack.pop() {
            if !self.alive[v as usize] || self.live < 3 || self.turn(v) != 0 {
                continue;
            }
            let (p, n) = (self.prev[v as usize], self.next[v as usize]);
            let across = if self.at(v) == self.at(n) {
                self.across[p as usize]
            } else if self.at(v) == self.at(p) {
                self.across[v as usize]
            } else {
                Across::Boundary
            };
            self.unlink(v, across);
            stack.extend([p, n]);
        }
    }

    fn push(&mut self, p: Vec2) -> u32 {
        self.pos.push(p);
        self.prev.push(0);
        self.next.push(0);
        self.across.push(Across::Boundary);
        self.alive.push(true);
        self.live += 1;
        (self.pos.len() - 1) as u32
    }

    fn link(&mut self, a: u32, b: u32, across: Across) {
        self.next[a as usize] = b;
        self.prev[b as usize] = a;
        self.across[a as usize] = across;
    }

    /// Merges `pending[0]` (a clockwise hole) into the ring through a bridge; `pending` holds the
    /// holes not merged yet, this one first. `None` when no bridge passes the exact test.
    ///
    /// A bridge edge is never an edge of the ring or of a pending hole (the visibility test), so
    /// splitting an edge at `m` splits a boundary edge.
    fn bridge(&mut self, pending: &[&[Vec2]], id: u32) -> Option<()> {
        let hole = pending[0];
        let len = hole.len();
        let m_at = (0..len).max_by(|&a, &b| {
            let (p, q) = (hole[a], hole[b]);
            p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y))
        })?;
        let m = hole[m_at];
        let (m_prev, m_next) = (hole[(m_at + len - 1) % len], hole[(m_at + 1) % len]);
        // A hole whose vertex `m` lies inside an edge of the ring (touching it there) may see no
        // vertex but through that point: split the edge at `m` for a zero-length bridge.
        let split = self.nodes().into_iter().find(|&a| {
            let (pa, pb) = (self.at(a), self.at(self.next[a as usize]));
            m != pa && m != pb && m.cmpge(pa.min(pb)).all() && m.cmple(pa.max(pb)).all() && orient2d(pa, pb, m) == 0
        });
        if let Some(a) = split {
            let (b, s) = (self.next[a as usize], self.push(m));
            self.link(a, s, Across::Boundary);
            self.link(s, b, Across::Boundary);
        }
        let visible = |v: u32| self.bridge_ok(v, m, m_prev, m_next, pending);
        let p = match self.ray_candidate(m) {
            Some(v) if visible(v) => v,
            _ => {
                let mut nodes = self.nodes();
                let dist = |v: &u32| self.at(*v).as_dvec2().distance_squared(m.as_dvec2());
                nodes.sort_by(|a, b| dist(a).total_cmp(&dist(b)));
                nodes.into_iter().find(|&v| visible(v))?
            }
        };
        // Splice: p → M → (hole) → M' → p' → (p's old next).
        let after = self.next[p as usize];
        let after_across = self.across[p as usize];
        let first = self.pos.len() as u32;
        for k in 0..=len {
            self.push(hole[(m_at + k) % len]);
        }
        let last = first + len as u32;
        let p_copy = self.push(self.at(p));
        self.link(p, first, Across::Bridge(id));
        for v in first..last {
            self.link(v, v + 1, Across::Boundary);
        }
        self.link(last, p_copy, Across::Bridge(id));
        self.link(p_copy, after, after_across);
        self.settle(&mut vec![p, first, last, p_copy]);
        Some(())
    }

    /// Eberly's bridge candidate for a hole whose rightmost vertex is `m`, in `f64` (the caller
    /// proves it exactly): the nearest edge met by the ray from `m` toward `+x`, its endpoint
    /// farther right, or the reflex vertex inside the triangle (`m`, hit point, endpoint) that is
    /// closest in angle to the ray, which hides the endpoint from `m`.
    fn ray_candidate(&self, m: Vec2) -> Option<u32> {
        let md = m.as_dvec2();
        let mut hit = f64::INFINITY;
        let mut edge = None;
        for a in self.nodes() {
            let b = self.next[a as usize];
            let (pa, pb) = (self.at(a).as_dvec2(), self.at(b).as_dvec2());
            if pa.y == pb.y || (pa.y - md.y) * (pb.y - md.y) > 0.0 {
                continue;
            }
            let x = pa.x + (md.y - pa.y) * (pb.x - pa.x) / (pb.y - pa.y);
            if x >= md.x && x < hit {
                hit = x;
                edge = Some((a, b));
            }
        }
        let (a, b) = edge?;
        for v in [a, b] {
            if self.at(v).as_dvec2() == DVec2::new(hit, md.y) {
                return Some(v);
            }
        }
        let end = if self.at(a).x >= self.at(b).x { a } else { b };
        let tri = [md, DVec2::new(hit, md.y), self.at(end).as_dvec2()];
        let key = |q: DVec2| ((q.y - md.y).abs() / (q.x - md.x), q.distance_squared(md));
        let mut best = (end, key(tri[2]));
        for r in self.nodes() {
            let q = self.at(r).as_dvec2();
            if r != end && self.turn(r) < 0 && inside_triangle_f64(tri, q) && key(q) < best.1 {
                best = (r, key(q));
            }
        }
        Some(best.0)
    }

    /// Whether node `v` can take a bridge from the hole vertex `m` (hole neighbours `m_prev`,
    /// `m_next`): exactly, the bridge leaves both ends into the polygon and its open segment meets
    /// no edge of the ring or of the holes in `pending`. A zero-length bridge (the hole touches
    /// the ring at `v`) needs the hole's corner to nest inside `v`'s corner instead.
    fn bridge_ok(&self, v: u32, m: Vec2, m_prev: Vec2, m_next: Vec2, pending: &[&[Vec2]]) -> bool {
        let p = self.at(v);
        let (p_prev, p_next) = (self.at(self.prev[v as usize]), self.at(self.next[v as usize]));
        if p == m {
            // Around p, counter-clockwise: p_next, m_prev, m_next, p_prev, so that the two corners
            // the splice makes, (p_prev, p, m_next) and (m_prev, p, p_next), do not overlap.
            return in_sector(p, p_next, p_prev, m_prev, true) && in_sector(p, m_prev, p_prev, m_next, true);
        }
        if !in_sector(p, p_next, p_prev, m, false) || !in_sector(m, m_next, m_prev, p, false) {
            return false;
        }
        let ring_clear = self.nodes().into_iter().all(|a| {
            !open_segment_meets_segment(m, p, self.at(a), self.at(self.next[a as usize]))
        });
        ring_clear
            && pending.iter().all(|hole| {
                (0..hole.len())
                    .all(|i| !open_segment_meets_segment(m, p, hole[i], hole[(i + 1) % hole.len()]))
            })
    }

    /// Whether live node `v` is an ear: a strictly convex corner whose open triangle no other
    /// edge of the ring meets.
    fn is_ear(&self, v: u32) -> bool {
        let (p, n) = (self.prev[v as usize], self.next[v as usize]);
        let tri = [self.at(p), self.at(v), self.at(n)];
        if orient2d(tri[0], tri[1], tri[2]) <= 0 {
            return false;
        }
        let (lo, hi) = (tri[0].min(tri[1]).min(tri[2]), tri[0].max(tri[1]).max(tri[2]));
        let mut e = n;
        while e != p {
            let f = self.next[e as usize];
            let (a, b) = (self.at(e), self.at(f));
            // The open triangle lies inside the open box: an edge outside it cannot meet it.
            let apart = a.max(b).cmple(lo).any() || a.min(b).cmpge(hi).any();
            if !apart && segment_meets_open_triangle(tri, a, b) {
                return false;
            }
            e = f;
        }
        true
    }

    /// Clips ears until fewer than 3 vertices remain: the triangles (node triples,
    /// counter-clockwise) and the sides they share, bridges included (`bridges` of them).
    fn clip_ears(&mut self, bridges: usize) -> Result<(Vec<[u32; 3]>, Vec<SharedSide>), DecomposeError> {
        let mut triangles = Vec::with_capacity(self.live);
        let mut shared = Vec::with_capacity(self.live);
        let mut bridge_side: Vec<Option<TriangleSide>> = vec![None; bridges];
        self.settle(&mut self.nodes());
        let mut candidates = self.nodes();
        let mut rescanned = false;
        while self.live >= 3 {
            let Some(v) = candidates.pop() else {
                if rescanned {
                    return Err(DecomposeError::NoEar);
                }
                rescanned = true;
                candidates = self.nodes();
                continue;
            };
            if !self.alive[v as usize] || !self.is_ear(v) {
                continue;
            }
            rescanned = false;
            let (p, n) = (self.prev[v as usize], self.next[v as usize]);
            let t = triangles.len() as u32;
            triangles.push([p, v, n]);
            for (from, to) in [(p, v), (v, n)] {
                let side = TriangleSide { triangle: t, from, to };
                match self.across[from as usize] {
                    Across::Boundary => {}
                    Across::Triangle(other) => shared.push(SharedSide { a: other, b: side }),
                    Across::Bridge(b) => match bridge_side[b as usize].take() {
                        Some(other) => shared.push(SharedSide { a: other, b: side }),
                        None => bridge_side[b as usize] = Some(side),
                    },
                }
            }
            self.unlink(v, Across::Triangle(TriangleSide { triangle: t, from: n, to: p }));
            self.settle(&mut vec![p, n]);
            candidates.extend([p, n]);
        }
        Ok((triangles, shared))
    }
}

/// Whether `u` lies in the sector at `x` swept counter-clockwise from the direction of `from` to
/// the direction of `to` (open, or closed when `closed`). A sector of 180° or more is the
/// complement of the convex sector from `to` to `from`.
fn in_sector(x: Vec2, from: Vec2, to: Vec2, u: Vec2, closed: bool) -> bool {
    let convex = |a: Vec2, b: Vec2, strict: bool| {
        let (s, t) = (orient2d(x, a, u), orient2d(x, u, b));
        if strict { s > 0 && t > 0 } else { s >= 0 && t >= 0 }
    };
    if orient2d(x, from, to) > 0 { convex(from, to, !closed) } else { !convex(to, from, closed) }
}

/// Whether the open segment `m p` (its endpoints excluded) meets the closed segment `c d`.
fn open_segment_meets_segment(m: Vec2, p: Vec2, c: Vec2, d: Vec2) -> bool {
    let (o1, o2) = (orient2d(m, p, c), orient2d(m, p, d));
    if o1 * o2 > 0 {
        return false;
    }
    if o1 == 0 && o2 == 0 {
        // All on one line: compare along the axis on which m and p differ most.
        let axis = if (p.x - m.x).abs() >= (p.y - m.y).abs() { 0 } else { 1 };
        let (lo, hi) = (m[axis].min(p[axis]), m[axis].max(p[axis]));
        return c[axis].max(d[axis]) > lo && c[axis].min(d[axis]) < hi;
    }
    // The lines meet in one point, inside the open segment unless it is m or p.
    let (o3, o4) = (orient2d(c, d, m), orient2d(c, d, p));
    o3 * o4 < 0
}

/// Whether the closed segment `a b` meets the open triangle `tri` (counter-clockwise), exactly.
///
/// Along the segment `a + s (b − a)`, the open half-plane left of each side is an interval of
/// `s`: everything, nothing, or bounded below where the segment enters it or above where it
/// leaves. The segment meets the triangle when every entry comes before every exit. An entry
/// through side `i` precedes an exit through side `j` exactly when the segment's line passes the
/// corner `c` where the two sides meet on the triangle's side of `c`: right of `c` (seen along
/// `a → b`) when side `i` ends at `c`, left of it when side `i` starts there.
fn segment_meets_open_triangle(tri: [Vec2; 3], a: Vec2, b: Vec2) -> bool {
    let mut entries = [usize::MAX; 3];
    let mut exits = [usize::MAX; 3];
    for k in 0..3 {
        let (s, e) = (tri[k], tri[(k + 1) % 3]);
        let (oa, ob) = (orient2d(s, e, a), orient2d(s, e, b));
        match (oa > 0, ob > 0) {
            (false, false) => return false,
            (false, true) => entries[k] = k,
            (true, false) => exits[k] = k,
            (true, true) => {}
        }
    }
    for &i in entries.iter().filter(|&&i| i != usize::MAX) {
        for &j in exits.iter().filter(|&&j| j != usize::MAX) {
            let ok = if j == (i + 1) % 3 {
                orient2d(a, b, tri[j]) < 0
            } else {
                orient2d(a, b, tri[i]) > 0
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// Strictly inside the triangle, either winding, in `f64` (a heuristic; see
/// [`Loop::ray_candidate`]).
fn inside_triangle_f64(tri: [DVec2; 3], q: DVec2) -> bool {
    let side = |a: DVec2, b: DVec2| (b - a).perp_dot(q - a);
    let (s0, s1, s2) = (side(tri[0], tri[1]), side(tri[1], tri[2]), side(tri[2], tri[0]));
    (s0 > 0.0 && s1 > 0.0 && s2 > 0.0) || (s0 < 0.0 && s1 < 0.0 && s2 < 0.0)
}

/// Hertel–Mehlhorn: joins the triangles across shared sides while both ends of the side stay
/// strictly convex, then stores the pieces flat.
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
        if orient2d(at(a0), at(u), at(b1)) <= 0 || orient2d(at(b0), at(w), at(a1)) <= 0 {
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
        out.vertices.extend(piece.iter().map(|&v| at(v)));
        out.ranges.push(start..out.vertices.len() as u32);
    }
    out
}

