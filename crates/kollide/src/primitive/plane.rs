//! Planes in 3D: construction, signed distance, point classification and projection.

use glam::Vec3;

use crate::math::tolerances::REL_EPSILON;

/// The plane of points `x` with `normal · x = d`. `normal` is unit length.
///
/// The front (positive) side is the one `normal` points into.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane3 {
    pub normal: Vec3,
    pub d: f32,
}

/// Where a point or a volume lies relative to a plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlaneSide {
    /// Entirely on the side the normal points into.
    Front,
    /// Entirely on the other side.
    Back,
    /// Touching or crossing the plane (for a point: on it, within the tolerance given).
    Intersecting,
}

impl Plane3 {
    /// The plane through `a`, `b`, `c`, with unit normal `(b - a) × (c - a)` normalized: the
    /// triangle `a, b, c` winds counter-clockwise seen from the front.
    ///
    /// Returns `None` when the points are collinear to within `f32` precision, that is when
    /// `|(b - a) × (c - a)| <= REL_EPSILON · |b - a| · |c - a|` (the sine of the angle at `a` is
    /// below [`REL_EPSILON`], where the computed normal's direction is no longer meaningful),
    /// which includes coincident points, and when any coordinate is NaN or infinite or the
    /// offset `d` overflows. Huge but finite coordinates are fine: the edges are rescaled before
    /// the cross product.
    pub fn from_points(a: Vec3, b: Vec3, c: Vec3) -> Option<Plane3> {
        let (u, v) = (b - a, c - a);
        // Rescale both edges by the largest coordinate magnitude so that neither the cross
        // product nor the squared lengths below can overflow or underflow; the direction of the
        // normal is unchanged. `!(scale > 0)` also catches NaN; an infinite scale (or an
        // overflowed difference) is rejected by the finiteness test.
        let scale = u.abs().max(v.abs()).max_element();
        let usable = scale > 0.0 && scale.is_finite();
        if !usable {
            return None;
        }
        let (u, v) = (u / scale, v / scale);
        let n = u.cross(v);
        let n2 = n.length_squared();
        let well_shaped = n2 > REL_EPSILON * REL_EPSILON * u.length_squared() * v.length_squared();
        if !well_shaped {
            return None;
        }
        let normal = n / n2.sqrt();
        let d = normal.dot(a);
        d.is_finite().then_some(Plane3 { normal, d })
    }

    /// The plane through `point` with normal direction `normal` (normalized here; any positive
    /// length is accepted).
    ///
    /// Returns `None` if `normal` is zero, too small or too large to normalize, or if any
    /// coordinate is NaN or infinite.
    pub fn from_point_normal(point: Vec3, normal: Vec3) -> Option<Plane3> {
        let normal = normal.try_normalize()?;
        let d = normal.dot(point);
        (d.is_finite() && point.is_finite()).then_some(Plane3 { normal, d })
    }

    /// The signed distance `normal · p - d` of `p` from the plane: positive in front, negative
    /// behind, zero on the plane. NaN in, NaN out.
    #[inline]
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        self.normal.dot(p) - self.d
    }

    /// The side of `p`: `Front` if its signed distance is `> tolerance`, `Back` if it is
    /// `< -tolerance`, otherwise `Intersecting` (on the plane within `tolerance`; use `0.0` for
    /// the exact `f32` sign). A NaN point, plane or tolerance gives `Intersecting`: no side can be
    /// proven.
    #[inline]
    pub fn classify_point(&self, p: Vec3, tolerance: f32) -> PlaneSide {
        let s = self.signed_distance(p);
        if s > tolerance {
            PlaneSide::Front
        } else if s < -tolerance {
            PlaneSide::Back
        } else {
            PlaneSide::Intersecting
        }
    }

    /// The orthogonal projection of `p` onto the plane: `p - signed_distance(p) · normal`, the
    /// closest point of the plane to `p`. NaN in, NaN out.
    #[inline]
    pub fn project_point(&self, p: Vec3) -> Vec3 {
        p - self.signed_distance(p) * self.normal
    }

    /// The same set of points with front and back swapped: `normal` and `d` negated.
    #[inline]
    pub fn flipped(&self) -> Plane3 {
        Plane3 { normal: -self.normal, d: -self.d }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_points_winds_counter_clockwise_from_the_front() {
        let p =
            Plane3::from_points(Vec3::new(0.0, 0.0, 2.0), Vec3::new(1.0, 0.0, 2.0), Vec3::new(0.0, 1.0, 2.0))
                .expect("non-degenerate");
        assert_eq!(p.normal, Vec3::Z);
        assert_eq!(p.d, 2.0);
        assert_eq!(p.classify_point(Vec3::new(5.0, -3.0, 3.0), 0.0), PlaneSide::Front);
        assert_eq!(p.classify_point(Vec3::new(5.0, -3.0, 1.0), 0.0), PlaneSide::Back);
        assert_eq!(p.classify_point(Vec3::new(5.0, -3.0, 2.0), 0.0), PlaneSide::Intersecting);
        assert_eq!(p.classify_point(Vec3::new(5.0, -3.0, 2.1), 0.2), PlaneSide::Intersecting);
        assert_eq!(p.project_point(Vec3::new(5.0, -3.0, 7.0)), Vec3::new(5.0, -3.0, 2.0));
        assert_eq!(p.signed_distance(Vec3::new(1.0, 1.0, -1.0)), -3.0);
        let f = p.flipped();
        assert_eq!(f.normal, -Vec3::Z);
        assert_eq!(f.classify_point(Vec3::new(5.0, -3.0, 3.0), 0.0), PlaneSide::Back);
        assert_eq!(f.project_point(Vec3::new(5.0, -3.0, 7.0)), Vec3::new(5.0, -3.0, 2.0));
    }

    #[test]
    fn degenerate_and_non_finite_points_give_none() {
        let (a, b) = (Vec3::ZERO, Vec3::X);
        assert_eq!(Plane3::from_points(a, b, Vec3::new(2.0, 0.0, 0.0)), None);
        assert_eq!(Plane3::from_points(a, a, a), None);
        assert_eq!(Plane3::from_points(a, b, b), None);
        assert_eq!(Plane3::from_points(a, b, Vec3::new(0.5, 1e-9, 0.0)), None);
        assert_eq!(Plane3::from_points(a, b, Vec3::new(f32::NAN, 1.0, 0.0)), None);
        assert_eq!(Plane3::from_points(a, b, Vec3::new(0.0, f32::INFINITY, 0.0)), None);
        // Huge and tiny (but well-shaped) triangles are fine.
        let big = Plane3::from_points(a, Vec3::X * 1e30, Vec3::Y * 1e30).expect("huge");
        assert_eq!(big.normal, Vec3::Z);
        let tiny = Plane3::from_points(a, Vec3::X * 1e-30, Vec3::Y * 1e-30).expect("tiny");
        assert_eq!(tiny.normal, Vec3::Z);
        // A plane far from the origin whose offset overflows.
        // The plane x + y + z = 3 MAX - 2 δ has offset √3 MAX (overflow).
        let (m, delta) = (f32::MAX, 1e35);
        let a = Vec3::new(m, m - delta, m - delta);
        let b = Vec3::new(m - delta, m, m - delta);
        let c = Vec3::new(m - delta, m - delta, m);
        assert_eq!(Plane3::from_points(a, b, c), None);
    }

    #[test]
    fn from_point_normal_normalizes_and_rejects_bad_normals() {
        let p =
            Plane3::from_point_normal(Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 10.0, 0.0)).expect("valid");
        assert_eq!(p, Plane3 { normal: Vec3::Y, d: 3.0 });
        assert_eq!(Plane3::from_point_normal(Vec3::ZERO, Vec3::ZERO), None);
        assert_eq!(Plane3::from_point_normal(Vec3::ZERO, Vec3::new(f32::NAN, 1.0, 0.0)), None);
        assert_eq!(Plane3::from_point_normal(Vec3::new(f32::INFINITY, 0.0, 0.0), Vec3::Z), None);
        assert_eq!(Plane3::from_point_normal(Vec3::new(f32::NAN, 0.0, 0.0), Vec3::Z), None);
    }

    #[test]
    fn nan_point_is_intersecting() {
        let p = Plane3 { normal: Vec3::Z, d: 0.0 };
        assert_eq!(p.classify_point(Vec3::splat(f32::NAN), 0.0), PlaneSide::Intersecting);
        assert_eq!(p.classify_point(Vec3::Z, f32::NAN), PlaneSide::Intersecting);
    }
}
