//! Steps 2 and 3 of the decomposition: the ring with its holes bridged in, and ear clipping.

use glam::{DVec2, Vec2};

use super::DecomposeError;
use crate::primitive::orient2d;

/// What lies across a ring edge.
#[derive(Clone, Copy)]
enum Across {
    /// Nothing to merge with: the outside of the polygon, or a side whose neighbour was lost when
    /// a straight vertex was dropped.
    Boundary,
    /// A triangle already clipped, whose side runs `from → to`.
    Triangle(TriangleSide),
    /// The other side of a hole's bridge.
    Bridge(u32),
}

/// Side `from → to` (counter-clockwise) of triangle `triangle`.
#[derive(Clone, Copy)]
pub(super) struct TriangleSide {
    pub(super) triangle: u32,
    pub(super) from: u32,
    pub(super) to: u32,
}

/// Two triangles sharing a side: `a.from` lies where `b.to` does and `a.to` where `b.from` does.
#[derive(Clone, Copy)]
pub(super) struct SharedSide {
    pub(super) a: TriangleSide,
    pub(super) b: TriangleSide,
}

/// The ring being triangulated, as a doubly linked list over node indices; `across[i]` tells
/// what lies across the edge from node `i` to `next[i]`.
pub(super) struct Loop {
    pub(super) pos: Vec<Vec2>,
    prev: Vec<u32>,
    next: Vec<u32>,
    across: Vec<Across>,
    alive: Vec<bool>,
    live: usize,
    start: u32,
}

impl Loop {
    pub(super) fn new(points: &[Vec2], capacity: usize) -> Loop {
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
    pub(super) fn bridge(&mut self, pending: &[&[Vec2]], id: u32) -> Option<()> {
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
            m != pa
                && m != pb
                && m.cmpge(pa.min(pb)).all()
                && m.cmple(pa.max(pb)).all()
                && orient2d(pa, pb, m) == 0
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
        let ring_clear = self
            .nodes()
            .into_iter()
            .all(|a| !open_segment_meets_segment(m, p, self.at(a), self.at(self.next[a as usize])));
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
    pub(super) fn clip_ears(
        &mut self,
        bridges: usize,
    ) -> Result<(Vec<[u32; 3]>, Vec<SharedSide>), DecomposeError> {
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
            let ok = if j == (i + 1) % 3 { orient2d(a, b, tri[j]) < 0 } else { orient2d(a, b, tri[i]) > 0 };
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

#[cfg(test)]
mod tests {
    use super::*;
    use glam::I64Vec2;
    use kollide_testkit::random::rng;
    use kollide_testkit::reference_primitive::{SegmentMeeting, segment_segment_exact};
    use rand::Rng;

    fn int_point(r: &mut kollide_testkit::random::TestRng) -> I64Vec2 {
        I64Vec2::new(r.random_range(-5..=5), r.random_range(-5..=5))
    }

    /// The segment meets the open triangle iff some `s ∈ [0, 1]` puts `a + s (b − a)` strictly
    /// left of all three sides: each side allows an interval of `s` (its orientation is affine in
    /// `s`), intersected here as exact fractions. Independent of the corner argument.
    fn meets_reference(tri: [I64Vec2; 3], a: I64Vec2, b: I64Vec2) -> bool {
        // Bounds `num / den` (den > 0) and whether they are attained.
        let (mut lo, mut hi) = ((0i128, 1i128, true), (1i128, 1i128, true));
        let less = |x: (i128, i128, bool), y: (i128, i128, bool)| x.0 * y.1 < y.0 * x.1;
        for k in 0..3 {
            let (s, e) = (tri[k], tri[(k + 1) % 3]);
            let (oa, ob) = (i128::from((e - s).perp_dot(a - s)), i128::from((e - s).perp_dot(b - s)));
            // oa + s (ob − oa) > 0.
            let d = ob - oa;
            if d == 0 {
                if oa <= 0 {
                    return false;
                }
            } else if d > 0 {
                let bound = (-oa, d, false);
                if !less(bound, lo) {
                    lo = bound;
                }
            } else {
                let bound = (oa, -d, false);
                if !less(hi, bound) {
                    hi = bound;
                }
            }
        }
        if lo.2 && hi.2 { !less(hi, lo) } else { less(lo, hi) }
    }

    #[test]
    fn segment_meets_open_triangle_equals_the_interval_reference() {
        let mut r = rng(0x2525_0101);
        let mut seen = [0; 2];
        for _ in 0..kollide_testkit::cases(100_000) {
            let mut tri = [int_point(&mut r), int_point(&mut r), int_point(&mut r)];
            let turn = (tri[1] - tri[0]).perp_dot(tri[2] - tri[0]);
            if turn == 0 {
                continue;
            }
            if turn < 0 {
                tri.swap(1, 2);
            }
            // Segments from the triangle's corners half of the time, to stress the corner cases.
            let end = |r: &mut kollide_testkit::random::TestRng| {
                if r.random_bool(0.3) { tri[r.random_range(0..3)] } else { int_point(r) }
            };
            let (a, b) = (end(&mut r), end(&mut r));
            let want = meets_reference(tri, a, b);
            let got = segment_meets_open_triangle(tri.map(|p| p.as_vec2()), a.as_vec2(), b.as_vec2());
            assert_eq!(got, want, "{tri:?} {a} {b}");
            seen[usize::from(want)] += 1;
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }

    #[test]
    fn open_segment_meets_segment_equals_the_exact_intersection() {
        let mut r = rng(0x2525_0102);
        for _ in 0..kollide_testkit::cases(100_000) {
            let [m, p, c, d] = [(); 4].map(|_| int_point(&mut r));
            if m == p {
                continue;
            }
            let want = match segment_segment_exact(m, p, c, d) {
                SegmentMeeting::None => false,
                SegmentMeeting::Point(x) => x != m.as_dvec2() && x != p.as_dvec2(),
                SegmentMeeting::Overlap(..) => true,
            };
            let [m, p, c, d] = [m, p, c, d].map(|q| q.as_vec2());
            assert_eq!(open_segment_meets_segment(m, p, c, d), want, "{m} {p} {c} {d}");
        }
    }

    #[test]
    fn sectors_open_and_closed() {
        let o = Vec2::ZERO;
        let (east, north, west, south) = (Vec2::X, Vec2::Y, -Vec2::X, -Vec2::Y);
        let ne = Vec2::new(1.0, 1.0);
        // 90° from east to north.
        assert!(in_sector(o, east, north, ne, false));
        assert!(!in_sector(o, east, north, east, false) && in_sector(o, east, north, east, true));
        assert!(!in_sector(o, east, north, west, true) && !in_sector(o, east, north, -ne, true));
        // 180° from east to west: the upper half-plane.
        assert!(in_sector(o, east, west, north, false) && !in_sector(o, east, west, south, true));
        assert!(!in_sector(o, east, west, west, false) && in_sector(o, east, west, west, true));
        // 270° from east to south: all but the fourth quadrant.
        assert!(in_sector(o, east, south, -ne, false) && in_sector(o, east, south, west, false));
        assert!(!in_sector(o, east, south, Vec2::new(1.0, -1.0), true));
        assert!(!in_sector(o, east, south, south, false) && in_sector(o, east, south, south, true));
    }
}
