//! Point in polygon: convex, even-odd (crossing) and nonzero (winding) rules (their shared rules
//! are in the [`d2`](crate::primitive::d2#point-in-polygon) documentation).

use glam::Vec2;

use crate::primitive::orient2d;

/// Whether `p` lies in the convex polygon `poly` or on its boundary.
///
/// Either winding: `p` is inside when it is on the same side (or on the line) of every edge.
/// Zero-length edges are ignored. A degenerate (zero-area) convex polygon is the segment or point
/// it spans, and `p` is inside when it lies on it. Fewer than 3 vertices, or any non-finite
/// coordinate: `false`. For a non-convex loop the answer is unspecified.
pub fn point_in_convex_polygon(p: Vec2, poly: &[Vec2]) -> bool {
    if poly.len() < 3 || !p.is_finite() {
        return false;
    }
    let mut seen_left = false;
    let mut seen_right = false;
    let mut prev = poly[poly.len() - 1];
    for &v in poly {
        if !v.is_finite() {
            return false;
        }
        match orient2d(prev, v, p) {
            1 => seen_left = true,
            -1 => seen_right = true,
            _ => {}
        }
        if seen_left && seen_right {
            return false;
        }
        prev = v;
    }
    if seen_left || seen_right {
        return true;
    }
    // `p` is collinear with every edge: the polygon is a segment (or a point) on a line through
    // `p`, and `p` is on it exactly when it is inside the vertices' bounding box.
    let (lo, hi) = poly.iter().fold((poly[0], poly[0]), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    p.cmpge(lo).all() && p.cmple(hi).all()
}

/// Whether `p` is inside `poly` by the even-odd rule: Graphics Gems IV's crossing test (Haines,
/// "Point in Polygon Strategies", 1994) with a ray from `p` toward `+x`.
///
/// An edge counts when it straddles the line `y = p.y` half-open (one endpoint `> p.y`, the other
/// `<= p.y`) and crosses it strictly right of `p`, decided by the sign of an exact orientation
/// (cheap bounding tests first). Points off the boundary are classified exactly; points on the
/// boundary follow the tiling rule (see [point in polygon]). Self-intersecting loops: even-odd.
/// Fewer than 3 vertices or any non-finite coordinate: `false`.
///
/// [point in polygon]: crate::primitive::d2#point-in-polygon
pub fn point_in_polygon_crossing(p: Vec2, poly: &[Vec2]) -> bool {
    if poly.len() < 3 || !p.is_finite() {
        return false;
    }
    let mut inside = false;
    let mut finite = true;
    let mut prev = poly[poly.len() - 1];
    for &v in poly {
        finite &= v.is_finite();
        if (prev.y > p.y) != (v.y > p.y) {
            // The edge straddles the line. Right of p entirely: it crosses right of p; left
            // entirely: it does not; otherwise ask the orientation. For an upward edge
            // (`v.y > prev.y`) the crossing is right of p iff p is strictly left of the edge.
            let crosses = if prev.x > p.x && v.x > p.x {
                true
            } else if prev.x <= p.x && v.x <= p.x {
                // Both endpoints at or left of p: the crossing is at or left of p.
                false
            } else {
                let side = orient2d(prev, v, p);
                if v.y > prev.y { side > 0 } else { side < 0 }
            };
            inside ^= crosses;
        }
        prev = v;
    }
    inside && finite
}

/// The winding number of the loop `poly` around `p`: the net number of counter-clockwise turns
/// (positive for a counter-clockwise loop around `p`, negative for a clockwise one).
///
/// Sunday's orientation form ("Inclusion of a point in a polygon", 2001; see also Hormann and
/// Agathos, "The point in polygon problem for arbitrary polygons", 2001): with the same half-open
/// rule as [`point_in_polygon_crossing`], an upward edge crossing `y = p.y` with `p` strictly on
/// its left adds 1 and a downward edge with `p` strictly on its right subtracts 1. No
/// trigonometry. Points on the boundary follow the tiling rule (see [point in polygon]). Fewer than
/// 3 vertices or any non-finite coordinate: 0.
///
/// [point in polygon]: crate::primitive::d2#point-in-polygon
pub fn winding_number(p: Vec2, poly: &[Vec2]) -> i32 {
    if poly.len() < 3 || !p.is_finite() {
        return 0;
    }
    let mut winding = 0;
    let mut finite = true;
    let mut prev = poly[poly.len() - 1];
    for &v in poly {
        finite &= v.is_finite();
        if prev.y <= p.y {
            if v.y > p.y && (prev.x > p.x && v.x > p.x || orient2d(prev, v, p) > 0) {
                winding += 1;
            }
        } else if v.y <= p.y && (prev.x > p.x && v.x > p.x || orient2d(prev, v, p) < 0) {
            winding -= 1;
        }
        prev = v;
    }
    if finite { winding } else { 0 }
}

/// Whether `p` is inside `poly` by the nonzero rule: `winding_number(p, poly) != 0`.
///
/// Agrees with [`point_in_polygon_crossing`] on simple polygons; differs on self-intersecting
/// loops where regions are wound more than once (see [point in polygon]). Fewer than 3 vertices or
/// any non-finite coordinate: `false`.
///
/// [point in polygon]: crate::primitive::d2#point-in-polygon
pub fn point_in_polygon_winding(p: Vec2, poly: &[Vec2]) -> bool {
    winding_number(p, poly) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn square() -> [Vec2; 4] {
        [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)]
    }

    #[test]
    fn convex_either_winding_boundary_inside() {
        let ccw = square();
        let mut cw = ccw;
        cw.reverse();
        for poly in [&ccw[..], &cw[..]] {
            assert!(point_in_convex_polygon(v(0.5, 0.5), poly));
            assert!(point_in_convex_polygon(v(1.0, 0.5), poly));
            assert!(point_in_convex_polygon(v(1.0, 1.0), poly));
            assert!(!point_in_convex_polygon(v(1.5, 0.5), poly));
            assert!(!point_in_convex_polygon(v(2.0, 0.0), poly)); // on the line of an edge
        }
    }

    #[test]
    fn convex_degenerate_polygons() {
        assert!(!point_in_convex_polygon(v(0.0, 0.0), &[]));
        assert!(!point_in_convex_polygon(v(0.0, 0.0), &[v(0.0, 0.0), v(1.0, 0.0)]));
        // Repeated vertices change nothing.
        let repeated = [v(0.0, 0.0), v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(1.0, 1.0), v(0.0, 1.0)];
        assert!(point_in_convex_polygon(v(0.5, 0.5), &repeated));
        assert!(!point_in_convex_polygon(v(1.5, 0.5), &repeated));
        // A zero-area loop is the segment it spans.
        let flat = [v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.0)];
        assert!(point_in_convex_polygon(v(1.5, 0.0), &flat));
        assert!(!point_in_convex_polygon(v(3.0, 0.0), &flat));
        assert!(!point_in_convex_polygon(v(1.0, 0.5), &flat));
        let point = [v(1.0, 1.0); 3];
        assert!(point_in_convex_polygon(v(1.0, 1.0), &point));
        assert!(!point_in_convex_polygon(v(1.0, 2.0), &point));
    }

    #[test]
    fn crossing_and_winding_on_a_square_boundary() {
        let sq = square();
        // Left and bottom edges and the bottom-left corner are inside; right and top are not.
        for (p, inside) in [
            (v(0.5, 0.5), true),
            (v(0.0, 0.5), true),
            (v(0.5, 0.0), true),
            (v(0.0, 0.0), true),
            (v(1.0, 0.5), false),
            (v(0.5, 1.0), false),
            (v(1.0, 1.0), false),
            (v(1.0, 0.0), false),
            (v(0.0, 1.0), false),
            (v(-0.5, 0.5), false),
        ] {
            assert_eq!(point_in_polygon_crossing(p, &sq), inside, "{p}");
            assert_eq!(point_in_polygon_winding(p, &sq), inside, "{p}");
        }
        assert_eq!(winding_number(v(0.5, 0.5), &sq), 1);
        let mut cw = sq;
        cw.reverse();
        assert_eq!(winding_number(v(0.5, 0.5), &cw), -1);
    }

    #[test]
    fn pentagram_center_is_wound_twice() {
        let star: Vec<Vec2> = (0..5)
            .map(|i| {
                let angle = std::f32::consts::FRAC_PI_2 + (i as f32) * 4.0 * std::f32::consts::PI / 5.0;
                v(angle.cos(), angle.sin())
            })
            .collect();
        let center = v(0.0, 0.0);
        assert_eq!(winding_number(center, &star), 2);
        assert!(point_in_polygon_winding(center, &star));
        assert!(!point_in_polygon_crossing(center, &star));
        // A tip of the star is wound once: inside by both rules.
        let tip = v(0.0, 0.8);
        assert_eq!(winding_number(tip, &star), 1);
        assert!(point_in_polygon_crossing(tip, &star));
    }

    #[test]
    fn tiling_diagonal_belongs_to_exactly_one_triangle() {
        let (a, b, c, d) = (v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0));
        let lower = [a, b, c];
        let upper = [a, c, d];
        for k in 0..=8 {
            let t = k as f32 / 8.0;
            let p = v(t, t);
            let crossing = [&lower, &upper].map(|tri| point_in_polygon_crossing(p, tri));
            let winding = [&lower, &upper].map(|tri| point_in_polygon_winding(p, tri));
            // The diagonal's end points are square corners: (0,0) is in the square, (1,1) is not.
            let expected = usize::from(k < 8);
            assert_eq!(crossing.iter().filter(|&&x| x).count(), expected, "{p}");
            assert_eq!(crossing, winding, "{p}");
        }
    }

    #[test]
    fn bad_input() {
        let sq = square();
        let nan = f32::NAN;
        assert!(!point_in_polygon_crossing(v(0.5, 0.5), &sq[..2]));
        assert_eq!(winding_number(v(0.5, 0.5), &[]), 0);
        for p in [v(nan, 0.5), v(0.5, f32::INFINITY)] {
            assert!(!point_in_convex_polygon(p, &sq));
            assert!(!point_in_polygon_crossing(p, &sq));
            assert_eq!(winding_number(p, &sq), 0);
        }
        for bad in [nan, f32::INFINITY, f32::NEG_INFINITY] {
            for i in 0..4 {
                for axis in 0..2 {
                    let mut poly = sq;
                    poly[i][axis] = bad;
                    assert!(!point_in_convex_polygon(v(0.5, 0.5), &poly));
                    assert!(!point_in_polygon_crossing(v(0.5, 0.5), &poly));
                    assert!(!point_in_polygon_winding(v(0.5, 0.5), &poly));
                }
            }
        }
        // Repeated vertices: zero-length edges are harmless.
        let repeated = [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 0.0), v(1.0, 1.0), v(0.0, 1.0), v(0.0, 1.0)];
        assert!(point_in_polygon_crossing(v(0.5, 0.5), &repeated));
        assert_eq!(winding_number(v(0.5, 0.5), &repeated), 1);
    }
}
