//! Convex shapes: support functions, bounding boxes under affine maps, ray casts, point
//! projection, mass properties and hull construction, against the references in
//! `kollide_testkit::reference_convex`.

use glam::{Affine3A, DVec3, Quat, Vec3, Vec3A};
use kollide::math::{Ray3, is_similarity};
use kollide::narrow::{NarrowError, cast_ray, project_point};
use kollide::shape::{
    Ball, Capsule, Cone, ConvexHull, ConvexShape, Cuboid, Cylinder, HullError, Rounded, ShapeKind,
    SupportMap, Triangle,
};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_convex::{
    RefShape, gap, mass_properties_reference, random_shape, ray_cast_reference, signed_distance,
};
use rand::Rng;

fn rng(seed: u64) -> TestRng {
    random::rng(0xc0_17e8 ^ seed)
}

/// A random placement: rigid half of the time, a general affine map otherwise.
fn placement(rng: &mut TestRng) -> Affine3A {
    if rng.random_bool(0.5) {
        Affine3A::from_rotation_translation(random::rotation3(rng), random::point3(rng, 3.0))
    } else {
        random::affine3(rng, 3.0)
    }
}

#[test]
fn support_points_are_extreme_and_in_the_shape() {
    let mut rng = rng(1);
    // 840 placed shapes per kind, 10 directions each: 10,080 shapes and 100,800 support points.
    for kind in ShapeKind::ALL {
        for _ in 0..cases(840) {
            let shape = random_shape(&mut rng, kind);
            let map = placement(&mut rng);
            let reference = RefShape::new(&shape, &map);
            let placed = kollide::shape::PlacedSupport::new(&shape, &map);
            for _ in 0..10 {
                let u = random::unit3(&mut rng);
                let p = placed.support(u.into());
                let scale = 1.0 + Vec3::from(p).abs().max_element() as f64;
                let expected = reference.support_value(u.as_dvec3());
                let got = Vec3::from(p).as_dvec3().dot(u.as_dvec3());
                assert!((got - expected).abs() <= 1e-5 * scale, "{kind:?}: {got} vs {expected}");
            }
        }
    }
}

#[test]
fn cylinder_support_under_a_map_equals_the_matrix_products() {
    // `Cylinder::support_under` reassociates `m · support(mᵀ d)`: the same point for every linear
    // map (general, reflecting, singular) and direction (random, near the axis, near its normal
    // plane), to rounding.
    let mut rng = rng(14);
    for case in 0..cases(20_000) {
        let c = Cylinder::new(rng.random_range(0.0..1.5), rng.random_range(0.0..1.5));
        let mut m = placement(&mut rng).matrix3;
        if case % 10 == 0 {
            m.x_axis = Vec3A::ZERO;
        }
        let mt = m.transpose();
        let d = Vec3A::from(random::unit3(&mut rng));
        // The local axis seen from the frame: `mᵀ d` along local y when `d` is along `m⁻ᵀ e_y`.
        let axis = m.inverse().transpose() * Vec3A::Y;
        let d = match case % 4 {
            0 if axis.is_finite() => axis.normalize() + d * 1e-4,
            1 if axis.is_finite() => d - axis * (axis.dot(d) / axis.length_squared()) + axis * 1e-4,
            _ => d,
        };
        let (p, q) = (c.support_under(&m, &mt, d), m * c.support(mt * d));
        let size = 1.0 + m.x_axis.length().max(m.y_axis.length()).max(m.z_axis.length()) * 3.0;
        assert!((p - q).length() <= 1e-5 * size, "case {case}: {p} vs {q}");
    }
}

#[test]
fn aabb_under_affine_maps_is_exact() {
    let mut rng = rng(2);
    // 840 per kind: 10,080 cases.
    for kind in ShapeKind::ALL {
        for _ in 0..cases(840) {
            let shape = random_shape(&mut rng, kind);
            let map = placement(&mut rng);
            let reference = RefShape::new(&shape, &map);
            let b = shape.aabb(&map);
            let generic = shape.aabb_under(&map);
            for axis in 0..3 {
                let mut e = DVec3::ZERO;
                e[axis] = 1.0;
                let (hi, lo) = (reference.support_value(e), -reference.support_value(-e));
                let tol = 1e-5 * (1.0 + hi.abs().max(lo.abs()));
                assert!(
                    (b.max[axis] as f64 - hi).abs() <= tol,
                    "{kind:?} max {axis}: {} vs {hi}",
                    b.max[axis]
                );
                assert!(
                    (b.min[axis] as f64 - lo).abs() <= tol,
                    "{kind:?} min {axis}: {} vs {lo}",
                    b.min[axis]
                );
                assert!((generic.max[axis] as f64 - hi).abs() <= tol, "{kind:?} generic max");
                assert!((generic.min[axis] as f64 - lo).abs() <= tol, "{kind:?} generic min");
            }
        }
    }
}

/// Ray casts under affine maps against marching and bisection of the membership test (all kinds
/// with a closed-form membership; hulls and triangles are checked separately).
#[test]
fn ray_casts_match_the_marching_reference() {
    let mut rng = rng(3);
    let kinds = [
        ShapeKind::Ball,
        ShapeKind::Capsule,
        ShapeKind::Cuboid,
        ShapeKind::Cylinder,
        ShapeKind::Cone,
        ShapeKind::RoundedCuboid,
        ShapeKind::RoundedCylinder,
        ShapeKind::RoundedCone,
    ];
    // 1,250 per kind: 10,000 cases.
    for kind in kinds {
        let (mut hits, mut total) = (0, 0);
        for _ in 0..cases(1250) {
            let shape = random_shape(&mut rng, kind);
            let map = placement(&mut rng);
            let reference = RefShape::new(&shape, &map);
            let target = map.transform_point3(random::point3(&mut rng, 0.5));
            let origin = target + random::unit3(&mut rng) * rng.random_range(2.0..8.0);
            let ray = Ray3::new(origin, target - origin);
            let max_t = rng.random_range(0.5..1.5);
            let got = cast_ray(&shape, &map, &ray, max_t).unwrap();
            let expected =
                ray_cast_reference(&reference, origin.as_dvec3(), ray.dir.as_dvec3(), max_t as f64, 400);
            total += 1;
            match (got, expected) {
                (Some(h), Some(t)) => {
                    hits += 1;
                    assert!((h.t as f64 - t).abs() <= 2e-3, "{kind:?}: t {} vs {t}", h.t);
                    assert!((h.normal.length() - 1.0).abs() < 1e-3 && h.normal.dot(ray.dir) <= 1e-6);
                    if h.t > 0.0 {
                        // Stepping back along the normal leaves the shape, stepping in enters it.
                        let p = ray.at(h.t).as_dvec3();
                        let n = h.normal.as_dvec3();
                        assert!(!reference.contains(p + n * 1e-3), "{kind:?}: normal does not point out");
                    }
                }
                (None, None) => {}
                (g, e) => {
                    // Only grazing rays may disagree: the reference marches with a finite step.
                    let t = g.map(|h| h.t as f64).or(e).unwrap();
                    let p = ray.at(t as f32).as_dvec3();
                    let graze = (-0.01..=0.01).contains(&signed_distance(
                        &reference,
                        &RefShape::new(
                            &ConvexShape::Ball(Ball::new(0.0)),
                            &Affine3A::from_translation(p.as_vec3()),
                        ),
                    ));
                    assert!(graze || (t - max_t as f64).abs() < 1e-3, "{kind:?}: {g:?} vs {e:?}");
                }
            }
        }
        assert!(hits > total / 10 && hits < total * 9 / 10, "{kind:?}: {hits}/{total} hits");
    }
}

#[test]
fn hull_ray_casts_match_the_triangles() {
    let mut rng = rng(4);
    for _ in 0..cases(10_000) {
        let shape = random_shape(&mut rng, ShapeKind::Hull);
        let ConvexShape::Hull(hull) = &shape else { unreachable!() };
        let map = placement(&mut rng);
        let target = map.transform_point3(random::point3(&mut rng, 1.0));
        let origin = target + random::unit3(&mut rng) * rng.random_range(3.0..8.0);
        let ray = Ray3::new(origin, target - origin);
        let got = cast_ray(&shape, &map, &ray, 1.5).unwrap();
        let best = hull
            .triangles()
            .iter()
            .filter_map(|t| {
                kollide::primitive::ray_triangle(
                    &ray,
                    1.5,
                    &t.map(|i| map.transform_point3(hull.vertices()[i as usize])),
                )
            })
            .map(|h| h.t)
            .fold(None, |m: Option<f32>, t| Some(m.map_or(t, |m| m.min(t))));
        if project_point(&shape, &map, origin).unwrap().inside {
            assert_eq!(got.map(|h| h.t), Some(0.0));
            continue;
        }
        match (got, best) {
            (Some(h), Some(t)) => assert!((h.t - t).abs() <= 1e-3 * (1.0 + t), "{} vs {t}", h.t),
            (None, None) => {}
            (g, e) => panic!("{g:?} vs {e:?}"),
        }
    }
}

/// Found by the suite at a tenth of its cases (`KOLLIDE_CASES=0.1`, which draws other shapes): a
/// rounded triangle under a 25:1 affine map, the point 0.0013 from it (f64 support-function
/// search), projected 0.0134 away, beyond the suite's 2e-3-of-the-size allowance for GJK under
/// anisotropic maps.
#[test]
#[ignore = "issue 30: GJK in f32 stalls on curved shapes under strongly anisotropic maps"]
fn rounded_triangle_projection_under_an_anisotropic_map() {
    let shape = ConvexShape::RoundedTriangle(Rounded::new(
        Triangle::new(
            Vec3::new(0.86619115, -0.7113714, -0.5553913),
            Vec3::new(0.11436415, 0.7276492, -0.37605095),
            Vec3::new(-0.5909066, -0.7545645, 0.7514746),
        ),
        0.16410254,
    ));
    let map = Affine3A::from_cols(
        Vec3A::new(-0.32665515, 0.32733637, -0.07611587),
        Vec3A::new(-0.22273974, -0.7121544, -0.5454182),
        Vec3A::new(-1.5670348, -0.028691607, 2.8788364),
        Vec3A::new(-2.3557048, 0.9873855, 2.3804884),
    );
    let p = Vec3::new(-2.5593884, 1.5647193, 3.7518435);
    let proj = project_point(&shape, &map, p).unwrap();
    assert!(!proj.inside);
    assert!((proj.point.distance(p) - 0.0013329582).abs() < 1e-4, "{}", proj.point.distance(p));
}

/// Point projection (local closed forms under rigid maps, GJK under affine maps) against the
/// support-function distance.
#[test]
fn point_projection_matches_the_reference_distance() {
    let mut rng = rng(5);
    // 840 per kind: 10,080 cases.
    let per_kind = cases(840);
    for kind in ShapeKind::ALL {
        let mut inside = 0;
        for _ in 0..per_kind {
            let shape = random_shape(&mut rng, kind);
            let map = placement(&mut rng);
            let reference = RefShape::new(&shape, &map);
            let p = map.transform_point3(random::point3(&mut rng, 1.2));
            let proj = project_point(&shape, &map, p).unwrap();
            let point = RefShape::new(&ConvexShape::Ball(Ball::new(0.0)), &Affine3A::from_translation(p));
            let lower = signed_distance(&reference, &point);
            let scale = 1.0 + p.abs().max_element() as f64;
            if proj.inside {
                inside += 1;
                assert!(lower <= 1e-4 * scale, "{kind:?}: inside but reference distance {lower}");
                assert!(reference.contains_within(p.as_dvec3(), 1e-4 * scale), "{kind:?}");
                assert_eq!(proj.point, p);
            } else {
                // Certificate: the point is in the shape (primal), and the shape lies behind the
                // plane through it normal to p - point (dual), so |p - point| is the distance.
                let q = proj.point.as_dvec3();
                let got = (p.as_dvec3() - q).length();
                assert!(reference.contains_within(q, 1e-4 * scale), "{kind:?}: projection not in the shape");
                let n = (p.as_dvec3() - q) / got;
                let dual = gap(&reference, &point, n);
                // `lower ≤ distance ≤ got`: either bound closing the gap proves `got` optimal (the
                // reference search can stall on ridges of the support function; the normal of a
                // near-zero distance is sensitive, so either certificate is accepted).
                // GJK in f32 on curved shapes under strongly anisotropic maps (up to 25:1 here)
                // stalls on their nearly flat sides: a known accuracy limit, 2e-3 of the size.
                let tol = if is_similarity(&map).is_some() { 1e-4 } else { 2e-3 } * scale;
                assert!(
                    got - lower <= tol || (got - dual).abs() <= tol,
                    "{kind:?}: {got}, reference {lower}, gap {dual}"
                );
                assert!(got >= lower - 1e-4 * scale, "{kind:?}: {got} below the reference {lower}");
            }
        }
        // (Flat and thin shapes hold few of the sampled points.)
        if !matches!(kind, ShapeKind::Triangle | ShapeKind::RoundedTriangle) {
            assert!(inside > per_kind / 40, "{kind:?}: only {inside} inside");
        }
    }
}

fn assert_mass_close(shape: &ConvexShape, n: usize, tol: f64) {
    let props = shape.mass_properties().unwrap();
    let b = shape.local_aabb();
    let (v, c, i) = mass_properties_reference(shape, n, b.min, b.max);
    assert!((props.volume as f64 - v).abs() <= tol * v, "{shape:?}: volume {} vs {v}", props.volume);
    let size = (b.max - b.min).max_element() as f64;
    assert!(
        (props.center.as_dvec3() - c).length() <= tol * size,
        "{shape:?}: centre {} vs {c}",
        props.center
    );
    let scale = i.x_axis.x.abs().max(i.y_axis.y.abs()).max(i.z_axis.z.abs());
    for col in 0..3 {
        let diff = props.inertia.col(col).as_dvec3() - i.col(col);
        assert!(diff.abs().max_element() <= 2.0 * tol * scale, "{shape:?}: inertia {} vs {i}", props.inertia);
    }
}

#[test]
fn mass_properties_match_grid_integration() {
    for shape in [
        ConvexShape::Ball(Ball::new(0.7)),
        ConvexShape::Capsule(Capsule::new(0.8, 0.3)),
        ConvexShape::Cuboid(Cuboid::new(Vec3::new(0.3, 0.7, 1.1))),
        ConvexShape::Cylinder(Cylinder::new(0.4, 0.9)),
        ConvexShape::Cone(Cone::new(0.6, 0.5)),
        ConvexShape::RoundedCuboid(Rounded::new(Cuboid::new(Vec3::new(0.3, 0.7, 0.5)), 0.25)),
        ConvexShape::RoundedCylinder(Rounded::new(Cylinder::new(0.4, 0.6), 0.2)),
    ] {
        assert_mass_close(&shape, 120, 0.01);
    }
}

#[test]
fn hull_mass_properties_are_exact_for_known_solids() {
    let h = Vec3::new(0.3, 0.7, 1.1);
    let corners: Vec<Vec3> = (0..8)
        .map(|i| {
            h * Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            ) + Vec3::new(5.0, -2.0, 1.0)
        })
        .collect();
    let hull = ConvexHull::new(&corners).unwrap();
    let m = hull.mass_properties();
    let b = Cuboid::new(h).mass_properties();
    assert!((m.volume - b.volume).abs() < 1e-5 * b.volume);
    assert!((m.center - Vec3::new(5.0, -2.0, 1.0)).length() < 1e-5);
    assert!((m.inertia - b.inertia).abs_diff_eq(glam::Mat3::ZERO, 1e-5 * b.inertia.x_axis.x));
    assert_eq!(hull.faces().len(), 6);
    assert!(hull.faces().iter().all(|f| hull.face_vertices(f).len() == 4));
    // A regular octahedron |x| + |y| + |z| ≤ a: V = 4/3 a³, I = V a² / 5 on each axis.
    let a = 0.9f32;
    let octa: Vec<Vec3> =
        [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z].map(|v| v * a).to_vec();
    let m = ConvexHull::new(&octa).unwrap().mass_properties();
    let v = 4.0 / 3.0 * a * a * a;
    assert!((m.volume - v).abs() < 1e-5 * v);
    assert!((m.inertia.x_axis.x - v * a * a / 5.0).abs() < 1e-5 * v);
}

#[test]
fn hulls_of_random_points_contain_them_and_are_closed() {
    let mut rng = rng(6);
    for case in 0..cases(10_000) {
        let n = rng.random_range(4..200);
        let mut pts: Vec<Vec3> = (0..n).map(|_| random::point3(&mut rng, 1.0)).collect();
        if case % 3 == 0 {
            // Duplicates and points on a plane through the cloud.
            let extra: Vec<Vec3> = pts.iter().take(10).copied().collect();
            pts.extend(extra);
            pts.extend((0..20).map(|_| {
                let p = random::point3(&mut rng, 1.0);
                Vec3::new(p.x, 1.0, p.z)
            }));
        }
        let Ok(hull) = ConvexHull::new(&pts) else { continue };
        let scale = 2.0;
        for p in &pts {
            for f in hull.faces() {
                assert!(f.normal.dot(*p) <= f.offset + 1e-5 * scale, "case {case}: point outside a face");
            }
        }
        for v in hull.vertices() {
            assert!(pts.contains(v), "case {case}: a hull vertex is not an input point");
        }
        // Closed 2-manifold: every directed edge has its twin, and V - E + F = 2.
        let mut edges = std::collections::HashSet::new();
        for t in hull.triangles() {
            for k in 0..3 {
                assert!(edges.insert((t[k], t[(k + 1) % 3])), "case {case}: repeated edge");
            }
        }
        assert!(edges.iter().all(|&(a, b)| edges.contains(&(b, a))), "case {case}: open edge");
        let (v, e, f) = (hull.vertices().len() as i64, edges.len() as i64 / 2, hull.triangles().len() as i64);
        assert_eq!(v - e + f, 2, "case {case}");
        // Faces are convex and wound counter-clockwise about their normal.
        for f in hull.faces() {
            let vs: Vec<Vec3> = hull.face_vertices(f).iter().map(|&i| hull.vertices()[i as usize]).collect();
            for k in 0..vs.len() {
                let (a, b, c) = (vs[k], vs[(k + 1) % vs.len()], vs[(k + 2) % vs.len()]);
                let turn = (b - a).cross(c - b).dot(f.normal);
                assert!(turn >= -1e-5, "case {case}: reflex face corner {turn}");
            }
        }
    }
}

#[test]
fn grid_points_with_coplanar_faces_give_a_box() {
    // A 5×5×5 lattice: 98 of its points are on the boundary, but the hull is the 8-corner box.
    let mut pts = Vec::new();
    for i in 0..5 {
        for j in 0..5 {
            for k in 0..5 {
                pts.push(Vec3::new(i as f32, j as f32, k as f32) * 0.25);
            }
        }
    }
    let hull = ConvexHull::new(&pts).unwrap();
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.faces().len(), 6);
    assert!((hull.mass_properties().volume - 1.0).abs() < 1e-6);
}

#[test]
fn degenerate_hull_input_is_an_error() {
    assert_eq!(ConvexHull::new(&[]), Err(HullError::Empty));
    assert_eq!(ConvexHull::new(&[Vec3::ZERO, Vec3::X, Vec3::NAN]), Err(HullError::NonFinite { index: 2 }));
    assert_eq!(ConvexHull::new(&[Vec3::ONE; 10]), Err(HullError::Degenerate));
    let line: Vec<Vec3> = (0..10).map(|i| Vec3::splat(i as f32)).collect();
    assert_eq!(ConvexHull::new(&line), Err(HullError::Degenerate));
    let plane: Vec<Vec3> = (0..30).map(|i| Vec3::new((i % 7) as f32, (i / 7) as f32, 2.0)).collect();
    assert_eq!(ConvexHull::new(&plane), Err(HullError::Degenerate));
    assert_eq!(ConvexHull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y]), Err(HullError::Degenerate));
    assert!(ConvexHull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).is_ok());
}

#[test]
fn similarity_detection() {
    let r = Quat::from_rotation_y(0.7);
    assert_eq!(
        is_similarity(&Affine3A::from_rotation_translation(r, Vec3::ONE)).map(|s| (s * 1e4).round()),
        Some(1e4)
    );
    let s =
        is_similarity(&Affine3A::from_scale_rotation_translation(Vec3::splat(2.5), r, Vec3::ZERO)).unwrap();
    assert!((s - 2.5).abs() < 1e-5);
    assert!(is_similarity(&Affine3A::from_scale(Vec3::new(1.0, 2.0, 1.0))).is_none());
    assert!(is_similarity(&Affine3A::from_scale(Vec3::ZERO)).is_none());
    assert!(is_similarity(&Affine3A::from_translation(Vec3::NAN)).is_none());
}

#[test]
fn bad_input_gets_an_error_or_a_documented_answer() {
    let ball = ConvexShape::Ball(Ball::new(1.0));
    let ray = Ray3::new(Vec3::new(0.0, 0.0, 5.0), Vec3::NEG_Z);
    assert_eq!(
        cast_ray(&ConvexShape::Ball(Ball::new(-1.0)), &Affine3A::IDENTITY, &ray, 10.0),
        Err(NarrowError::InvalidShape(0))
    );
    assert_eq!(cast_ray(&ball, &Affine3A::from_scale(Vec3::ZERO), &ray, 10.0), Err(NarrowError::NonFinite));
    assert_eq!(
        cast_ray(&ball, &Affine3A::from_translation(Vec3::NAN), &ray, 10.0),
        Err(NarrowError::NonFinite)
    );
    assert_eq!(cast_ray(&ball, &Affine3A::IDENTITY, &Ray3::new(Vec3::ZERO, Vec3::ZERO), 10.0), Ok(None));
    assert_eq!(project_point(&ball, &Affine3A::IDENTITY, Vec3::NAN), Err(NarrowError::NonFinite));
    // Zero-size shapes are valid lower-dimensional sets.
    let point = ConvexShape::Ball(Ball::new(0.0));
    assert_eq!(project_point(&point, &Affine3A::IDENTITY, Vec3::X).unwrap().point, Vec3::ZERO);
    let disc = ConvexShape::Cylinder(Cylinder::new(0.0, 1.0));
    assert!(cast_ray(&disc, &Affine3A::IDENTITY, &Ray3::new(Vec3::Y, Vec3::NEG_Y), 2.0).unwrap().is_some());
    let flat = Triangle::new(Vec3::ZERO, Vec3::X, Vec3::X * 2.0);
    assert_eq!(flat.mass_properties().volume, 0.0);
    assert!(!ConvexShape::Cuboid(Cuboid::new(Vec3::new(1.0, f32::NAN, 1.0))).is_valid());
    assert!(ConvexShape::RoundedCone(Rounded::new(Cone::new(0.0, 0.0), 0.0)).is_valid());
    assert_eq!(ConvexShape::Ball(Ball::new(1.0)).core_support(Vec3A::X), Vec3A::ZERO);
}

#[test]
fn rounded_cuboid_mass_properties_reduce_to_the_box_and_the_ball() {
    let h = Vec3::new(0.3, 0.7, 0.5);
    let (rounded, cuboid) =
        (Rounded::new(Cuboid::new(h), 0.0).mass_properties(), Cuboid::new(h).mass_properties());
    assert!((rounded.volume - cuboid.volume).abs() < 1e-6);
    assert!(rounded.inertia.abs_diff_eq(cuboid.inertia, 1e-6));
    let (rounded, ball) =
        (Rounded::new(Cuboid::new(Vec3::ZERO), 0.8).mass_properties(), Ball::new(0.8).mass_properties());
    assert!((rounded.volume - ball.volume).abs() < 1e-5);
    assert!(rounded.inertia.abs_diff_eq(ball.inertia, 1e-5));
    // A flat rounded box (zero height): Steiner's formula V + S r + M r² + 4/3 π r³ with V = 0,
    // S = 2 (2a)(2c) and M = π (a + c) (edges of length 2a and 2c, exterior angle π, counted twice).
    let (a, c, r) = (0.4f32, 0.9f32, 0.2f32);
    let flat = Rounded::new(Cuboid::new(Vec3::new(a, 0.0, c)), r).mass_properties();
    let pi = std::f32::consts::PI;
    let v = 8.0 * r * a * c + 2.0 * pi * r * r * (a + c) + 4.0 / 3.0 * pi * r * r * r;
    assert!((flat.volume - v).abs() < 1e-5 * v);
}

#[test]
fn rounded_cylinder_mass_properties_reduce_to_the_cylinder_the_capsule_and_the_ball() {
    let close = |a: kollide::shape::MassProperties, b: kollide::shape::MassProperties| {
        (a.volume - b.volume).abs() < 1e-5 * b.volume
            && a.inertia.abs_diff_eq(b.inertia, 1e-5 * b.inertia.x_axis.x)
    };
    let rounded = |h, r, rho| Rounded::new(Cylinder::new(h, r), rho).mass_properties();
    assert!(close(rounded(0.6, 0.4, 0.0), Cylinder::new(0.6, 0.4).mass_properties()));
    assert!(close(rounded(0.6, 0.0, 0.3), Capsule::new(0.6, 0.3).mass_properties()));
    assert!(close(rounded(0.0, 0.0, 0.7), Ball::new(0.7).mass_properties()));
}

/// Regression: under a uniform scale other than 1 the projection ran GJK on the shape's core
/// and forgot its margin, so points in a scaled ball's or rounded box's rounding were outside.
#[test]
fn project_point_under_uniform_scale_keeps_the_margin() {
    let rounded = ConvexShape::RoundedCuboid(Rounded::new(Cuboid::new(Vec3::splat(0.5)), 0.25));
    let scale2 = Affine3A::from_scale(Vec3::splat(2.0));
    let inside = project_point(&rounded, &scale2, Vec3::new(1.1, 0.0, 0.0)).unwrap();
    assert!(inside.inside, "{inside:?}: the surface is at x = 1.5");
    let outside = project_point(&rounded, &scale2, Vec3::new(2.0, 0.0, 0.0)).unwrap();
    assert!(!outside.inside && (outside.point - Vec3::new(1.5, 0.0, 0.0)).length() < 1e-5, "{outside:?}");
    let ball = ConvexShape::Ball(Ball::new(0.5));
    let q = project_point(
        &ball,
        &Affine3A::from_scale_rotation_translation(Vec3::splat(3.0), Quat::from_rotation_z(0.4), Vec3::X),
        Vec3::new(4.0, 0.0, 0.0),
    )
    .unwrap();
    assert!(!q.inside && (q.point - Vec3::new(2.5, 0.0, 0.0)).length() < 1e-5, "{q:?}");
    assert!(project_point(&ball, &scale2, Vec3::new(0.9, 0.0, 0.0)).unwrap().inside);
}
