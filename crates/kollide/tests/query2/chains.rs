//! Chains: shapes slide along polylines without ghost contacts, and one-sided chains ignore
//! shapes behind them.

use glam::{Affine2, Mat2, Vec2};
use kollide::query::{self, PartManifold2, Polyline2, Shape2};
use kollide::shape::{Ball2, Capsule2, ConvexPolygon2, ConvexShape2, Cuboid2};
use kollide_testkit::reference_shape2::PlacedShape2;

/// The chain's segment normals (right-hand, `(d.y, -d.x)`), in world space under `map`.
fn segment_normals(points: &[Vec2], map: &Affine2) -> Vec<Vec2> {
    points
        .windows(2)
        .map(|w| {
            let d = map.transform_vector2(w[1] - w[0]);
            let n = Vec2::new(d.y, -d.x).normalize();
            if map.matrix2.determinant() < 0.0 { -n } else { n }
        })
        .collect()
}

/// An open chain through `points`.
fn chain(points: &[Vec2], one_sided: bool) -> Shape2 {
    Polyline2::new(points, false, one_sided).unwrap().into()
}

/// Slides `shape` along the chain through `resting(f)` for `f` from 0 to 1 in `steps` steps,
/// with the chain as A and as B; every manifold's normal (from the chain to the shape) must be
/// admissible for its segment, `allowed(segment, normal)`. Returns the number of manifolds.
fn slide(
    chain: &Shape2,
    chain_map: &Affine2,
    shape: &ConvexShape2,
    resting: impl Fn(f32) -> Affine2,
    steps: usize,
    allowed: &dyn Fn(u32, Vec2) -> bool,
) -> usize {
    let shape = Shape2::Convex(shape.clone());
    let mut contacts = 0;
    let mut out: Vec<PartManifold2> = Vec::new();
    for k in 0..=steps {
        let at = resting(k as f32 / steps as f32);
        query::contact_manifolds2(chain, chain_map, &shape, &at, 0.01, &mut out).unwrap();
        assert!(!out.is_empty(), "step {k}: no contact at {at:?}");
        for m in &out {
            assert!(allowed(m.part_a, m.manifold.normal), "step {k}: chain as A: {m:?} at {at:?}");
        }
        contacts += out.len();
        query::contact_manifolds2(&shape, &at, chain, chain_map, 0.01, &mut out).unwrap();
        for m in &out {
            assert!(allowed(m.part_b, -m.manifold.normal), "step {k}: chain as B: {m:?} at {at:?}");
        }
    }
    contacts
}

/// The shapes that slide, with their rotation: a box on a face and tilted onto a corner, a disc,
/// a capsule lying down, a rounded box.
fn sliders() -> Vec<(ConvexShape2, f32)> {
    let rounded = ConvexPolygon2::rounded(&Cuboid2::new(Vec2::new(0.4, 0.2)).vertices(), 0.05).unwrap();
    let block = ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(0.5, 0.25)));
    vec![
        (block.clone(), 0.0),
        (block, 0.3),
        (ConvexShape2::Ball(Ball2::new(0.3)), 0.0),
        (ConvexShape2::Capsule(Capsule2::new(0.5, 0.2)), std::f32::consts::FRAC_PI_2),
        (ConvexShape2::Polygon(rounded), 0.0),
    ]
}

/// The shape rotated by `tilt` from a face of (world) normal `up`, resting on it at `point`,
/// overlapping it by 0.005.
fn rest_on(shape: &ConvexShape2, tilt: f32, point: Vec2, up: Vec2) -> Affine2 {
    let rotation = Affine2::from_angle(tilt + up.to_angle() - std::f32::consts::FRAC_PI_2);
    let below = PlacedShape2::new(shape, &rotation).support_value(-up.as_dvec2()) as f32;
    Affine2::from_mat2_translation(rotation.matrix2, point + up * (below - 0.005))
}

#[test]
fn a_box_sliding_along_a_flat_chain_never_catches() {
    // Collinear points 0.5 apart (one pair closer), right to left: the shapes' side is up.
    let mut xs: Vec<f32> = (0..=20).map(|i| 5.0 - 0.5 * i as f32).collect();
    xs.insert(7, 1.7);
    let points: Vec<Vec2> = xs.iter().map(|&x| Vec2::new(x, 0.0)).collect();
    let mut contacts = 0;
    for one_sided in [false, true] {
        let c = chain(&points, one_sided);
        for map in [
            Affine2::IDENTITY,
            Affine2::from_mat2_translation(Mat2::from_angle(0.7) * 2.0, Vec2::new(3.0, -1.0)),
            Affine2::from_mat2_translation(Mat2::from_angle(-0.4), Vec2::new(1e3, 2e3)),
            Affine2::from_mat2_translation(Mat2::from_diagonal(Vec2::new(-1.0, 1.0)), Vec2::new(0.5, 0.0)),
        ] {
            let up = map.transform_vector2(Vec2::Y).normalize();
            for (shape, tilt) in sliders() {
                let at =
                    |f: f32| rest_on(&shape, tilt, map.transform_point2(Vec2::new(-4.0 + 8.0 * f, 0.0)), up);
                contacts += slide(&c, &map, &shape, at, 997, &|_, n| (n - up).length() < 1e-4);
            }
        }
    }
    assert!(contacts >= 2 * 4 * 5 * 998, "{contacts}");
}

#[test]
fn shapes_sliding_over_gently_bent_chains_get_only_their_segments_normals() {
    // y = ±0.02 x², sampled every 0.5 from 5 to -5: joints bending by 0.02 rad, a valley
    // (concave joints: only the face normals) or a hill (convex joints: the normals between
    // the two faces too).
    for bend in [0.02f32, -0.02] {
        let points: Vec<Vec2> =
            (0..=20).map(|i| 5.0 - 0.5 * i as f32).map(|x| Vec2::new(x, bend * x * x)).collect();
        let convex = bend < 0.0;
        for map in [
            Affine2::IDENTITY,
            Affine2::from_mat2_translation(Mat2::from_angle(2.0) * 0.5, Vec2::new(-2.0, 1.0)),
        ] {
            let normals = segment_normals(&points, &map);
            // Segment i runs from points[i] to points[i + 1]; its normal and its neighbours'.
            let allowed = |i: u32, n: Vec2| {
                let i = i as usize;
                let own = normals[i];
                if (n - own).length() < 1e-4 {
                    return true;
                }
                convex
                    && [i.checked_sub(1), Some(i + 1)]
                        .into_iter()
                        .flatten()
                        .filter(|&j| j < normals.len())
                        .any(|j| {
                            let other = normals[j];
                            let turn = own.perp_dot(other);
                            own.perp_dot(n) * turn >= -1e-6
                                && n.perp_dot(other) * turn >= -1e-6
                                && n.dot(own) > 0.0
                        })
            };
            let c = chain(&points, false);
            for (shape, tilt) in sliders() {
                let at = |f: f32| {
                    // Over the segment under x, resting on its face.
                    let x = 4.0 - 8.0 * f;
                    let i = (((5.0 - x) / 0.5) as usize).min(19);
                    let (p, q) = (points[i], points[i + 1]);
                    let on = p.lerp(q, (p.x - x) / (p.x - q.x));
                    rest_on(&shape, tilt, map.transform_point2(on), normals[i])
                };
                slide(&c, &map, &shape, at, 997, &allowed);
            }
        }
    }
}

#[test]
fn a_one_sided_chain_ignores_shapes_behind_it() {
    // Right to left: the front is up. A closed counter-clockwise square: the front is outside.
    let flat =
        chain(&[Vec2::new(3.0, 0.0), Vec2::new(1.0, 0.0), Vec2::new(-1.0, 0.0), Vec2::new(-3.0, 0.0)], true);
    let square = [Vec2::new(-2.0, -2.0), Vec2::new(2.0, -2.0), Vec2::new(2.0, 2.0), Vec2::new(-2.0, 2.0)];
    let loop_ = Shape2::from(Polyline2::new(&square, true, true).unwrap());
    let id = Affine2::IDENTITY;
    let mut out = Vec::new();
    for (shape, tilt) in sliders() {
        for x in [-2.0f32, -1.0, 0.3, 1.0, 2.5] {
            let (front, behind) = (
                rest_on(&shape, tilt, Vec2::new(x, 0.0), Vec2::Y),
                rest_on(&shape, tilt, Vec2::new(x, 0.0), Vec2::NEG_Y),
            );
            let s = Shape2::Convex(shape.clone());
            query::contact_manifolds2(&flat, &id, &s, &front, 0.01, &mut out).unwrap();
            assert!(
                !out.is_empty() && out.iter().all(|m| (m.manifold.normal - Vec2::Y).length() < 1e-4),
                "{shape:?} at {x}: {out:?}"
            );
            query::contact_manifolds2(&flat, &id, &s, &behind, 0.01, &mut out).unwrap();
            assert!(out.is_empty(), "{shape:?} behind at {x}: {out:?}");
            query::contact_manifolds2(&s, &behind, &flat, &id, 0.01, &mut out).unwrap();
            assert!(out.is_empty(), "{shape:?} behind at {x}, chain as B: {out:?}");
            // Against the square's bottom edge from outside (below) and from inside (above).
            let (outside, inside) = (
                rest_on(&shape, tilt, Vec2::new(x * 0.6, -2.0), Vec2::NEG_Y),
                rest_on(&shape, tilt, Vec2::new(x * 0.6, -2.0), Vec2::Y),
            );
            query::contact_manifolds2(&loop_, &id, &s, &outside, 0.01, &mut out).unwrap();
            assert!(
                !out.is_empty() && out.iter().all(|m| (m.manifold.normal - Vec2::NEG_Y).length() < 1e-4),
                "{out:?}"
            );
            query::contact_manifolds2(&loop_, &id, &s, &inside, 0.01, &mut out).unwrap();
            assert!(out.is_empty(), "{shape:?} inside the loop at {x}: {out:?}");
        }
    }
}

/// The points of the valley `y = 0.02 x²` every 0.5 from 5 to -5 (concave joints), and their
/// segments' normals.
fn valley() -> (Vec<Vec2>, Vec<Vec2>) {
    let points: Vec<Vec2> =
        (0..=20).map(|i| 5.0 - 0.5 * i as f32).map(|x| Vec2::new(x, 0.02 * x * x)).collect();
    let normals = segment_normals(&points, &Affine2::IDENTITY);
    (points, normals)
}

/// A disc over a concave joint, touching the upper segment at the joint: the normal from the
/// joint lies 0.03 degrees off the face normal, and the test `normal · face ≥ 1 - 1e-5` (a
/// quarter of a degree) took it for the face normal.
#[test]
fn a_disc_at_a_concave_joint_gets_the_face_normal() {
    let (points, normals) = valley();
    let c = chain(&points, false);
    let block = Shape2::Convex(ConvexShape2::Ball(Ball2::new(0.3)));
    let at = Affine2::from_translation(Vec2::new(1.9733822, 0.37385863));
    let mut out = Vec::new();
    query::contact_manifolds2(&c, &Affine2::IDENTITY, &block, &at, 0.01, &mut out).unwrap();
    assert!(!out.is_empty());
    for m in &out {
        assert!((m.manifold.normal - normals[m.part_a as usize]).length() < 1e-5, "{m:?}");
    }
}

/// A capsule's end just past the joint at the end of the chain's first segment: the corner normal
/// leaned toward the segment's free end (0.5 away), whose unrestricted cone admitted it, though
/// the contact was at the other end, a concave joint.
#[test]
fn an_ends_cone_admits_only_contacts_at_that_end() {
    let (points, normals) = valley();
    let c = chain(&points, false);
    let capsule = Shape2::Convex(ConvexShape2::Capsule(Capsule2::new(0.5, 0.2)));
    let at = Affine2::from_mat2_translation(
        Mat2::from_cols(Vec2::new(-0.14834033, 0.98893636), Vec2::new(-0.98893636, -0.14834033)),
        Vec2::new(3.9710736, 0.51284266),
    );
    let mut out = Vec::new();
    query::contact_manifolds2(&c, &Affine2::IDENTITY, &capsule, &at, 0.01, &mut out).unwrap();
    assert!(out.iter().any(|m| m.part_a == 0), "{out:?}");
    for m in &out {
        assert!((m.manifold.normal - normals[m.part_a as usize]).length() < 1e-5, "{m:?}");
    }
}
