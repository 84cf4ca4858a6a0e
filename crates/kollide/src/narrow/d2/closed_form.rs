//! Closed forms for the pairs whose cores are points or segments (discs, capsules, segments):
//! the closest points of two segments, with the radii added.
//!
//! These pairs skip the pair frame: each core is placed with the world's axes relative to A's
//! origin (the translations subtracted first, so pairs far from the origin keep their
//! precision), which needs no inverse.

use glam::{Affine2, Vec2};

use super::frame::{MAX_PROXY, Proxy2, similarity_scale};
use super::manifold::{ContactManifold2, closest_normal, collide_proxies};
use super::query::Contact2;
use crate::primitive::d2::test_segment_segment;
use crate::shape::{ConvexShape2, segment_closest_params2};

/// A disc, capsule or segment placed relative to an origin: its core segment (a point for a
/// disc) and its radius.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SmallCore {
    pub p0: Vec2,
    pub p1: Vec2,
    pub radius: f32,
}

impl SmallCore {
    /// `shape` placed by `to_world` relative to `origin`, when it is a disc, capsule or segment
    /// and its placement keeps discs discs. The shape must be valid.
    #[inline(always)]
    pub fn new(shape: &ConvexShape2, to_world: &Affine2, origin: Vec2) -> Option<Self> {
        let t = to_world.translation - origin;
        match shape {
            ConvexShape2::Ball(s) => {
                let scale = similarity_scale(&to_world.matrix2)?;
                Some(Self { p0: t, p1: t, radius: s.radius * scale })
            }
            ConvexShape2::Capsule(s) => {
                let scale = similarity_scale(&to_world.matrix2)?;
                let h = to_world.matrix2.y_axis * s.half_height;
                Some(Self { p0: t - h, p1: t + h, radius: s.radius * scale })
            }
            ConvexShape2::Segment(s) => {
                let m = to_world.matrix2;
                Some(Self { p0: m * s.a + t, p1: m * s.b + t, radius: 0.0 })
            }
            _ => None,
        }
    }

    /// The core as a proxy (one point or a two-sided segment).
    fn proxy(&self) -> Proxy2 {
        let mut p = Proxy2::EMPTY;
        p.radius = self.radius;
        p.points = [self.p0; MAX_PROXY];
        if self.p0 == self.p1 {
            p.count = 1;
        } else {
            p.count = 2;
            p.points[1] = self.p1;
            let e = self.p1 - self.p0;
            p.normals[0] = Vec2::new(e.y, -e.x).normalize_or_zero();
            p.normals[1] = -p.normals[0];
        }
        p
    }
}

/// Both shapes as small cores relative to A's origin.
#[inline(always)]
pub(crate) fn small_pair(
    a: &ConvexShape2,
    a_to_world: &Affine2,
    b: &ConvexShape2,
    b_to_world: &Affine2,
) -> Option<(SmallCore, SmallCore)> {
    let origin = a_to_world.translation;
    Some((SmallCore::new(a, a_to_world, origin)?, SmallCore::new(b, b_to_world, origin)?))
}

/// The closest points of the two cores; one point when the cores meet (decided exactly, so
/// crossing segments are not kept apart by the rounding of their crossing point).
#[inline(always)]
pub(crate) fn closest(a: &SmallCore, b: &SmallCore) -> (Vec2, Vec2) {
    let (s, t) = segment_closest_params2(a.p0, a.p1, b.p0, b.p1);
    let (p, q) = (a.p0 + (a.p1 - a.p0) * s, b.p0 + (b.p1 - b.p0) * t);
    if p != q && cores_touch(a, b, p, q) && test_segment_segment(a.p0, a.p1, b.p0, b.p1) {
        return (p, p);
    }
    (p, q)
}

/// Whether the cores meet: closest points `p`, `q` too close for their direction to be trusted,
/// or segments that cross. The closest points of nearly parallel crossing segments round to a
/// distance far above zero, so within `1e-4` of the coordinates' size the exact crossing test
/// decides.
#[inline(always)]
pub(crate) fn cores_touch(a: &SmallCore, b: &SmallCore, p: Vec2, q: Vec2) -> bool {
    let size = a.p0.abs().max(a.p1.abs()).max(b.p0.abs()).max(b.p1.abs()).max_element();
    let dist2 = p.distance_squared(q);
    dist2 <= (1e-6 * size) * (1e-6 * size)
        || (dist2 <= (1e-4 * size) * (1e-4 * size) && test_segment_segment(a.p0, a.p1, b.p0, b.p1))
}

/// The contact of the two shapes (relative to A's origin): the closest points when the cores are
/// apart, else the minimum translation of the cores (their separating axes) with the radii added.
pub(crate) fn small_contact(a: &SmallCore, b: &SmallCore) -> Contact2 {
    let (s, t) = segment_closest_params2(a.p0, a.p1, b.p0, b.p1);
    let (p, q) = (a.p0 + (a.p1 - a.p0) * s, b.p0 + (b.p1 - b.p0) * t);
    if !cores_touch(a, b, p, q) {
        let (n, dist) = closest_normal(a.p0, a.p1, b.p0, b.p1, s, t, q - p);
        return Contact2 {
            point_a: p + n * a.radius,
            point_b: q - n * b.radius,
            normal: n,
            separation: dist - a.radius - b.radius,
            part_a: 0,
            part_b: 0,
        };
    }
    let mut m = ContactManifold2::default();
    collide_proxies(&a.proxy(), &b.proxy(), f32::INFINITY, &mut m);
    let deepest = m.deepest().copied().unwrap_or_default();
    Contact2 {
        point_a: deepest.point_a,
        point_b: deepest.point_b,
        normal: m.normal,
        separation: deepest.separation,
        part_a: 0,
        part_b: 0,
    }
}

/// The manifold of the two shapes (relative to A's origin) within `prediction`.
pub(crate) fn small_manifold(a: &SmallCore, b: &SmallCore, prediction: f32, out: &mut ContactManifold2) {
    collide_proxies(&a.proxy(), &b.proxy(), prediction, out);
}
