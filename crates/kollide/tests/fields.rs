//! Fields: analytic signed distances against independent references, gradients against finite
//! differences, Lipschitz and bounds contracts, grids sampled from meshes against the mesh's own
//! signed distance, spatial signatures against the solids they summarize, point sets and field
//! pairs against brute force.

use glam::{Affine3A, DVec3, Mat3, Vec3};
use kollide::field::{
    BallField, CapsuleField, CuboidField, Field3, FieldContact, FieldError, FieldsIntersection, GridField,
    Intersection, MAX_GRID_VERTICES, Metaball, MetaballField, PlacedField, PointFieldStats, SmoothUnion,
    SpatialSignature, Subtraction, TorusField, Union, field_contacts, fields_intersect, first_point_inside,
};
use kollide::mesh::TriMesh;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_field as reference;
use kollide_testkit::{cases, shapes};
use rand::Rng;

const CASES: usize = 10_000;

fn random_affine(rng: &mut TestRng) -> Affine3A {
    let scale = Vec3::new(rng.random_range(0.4..2.5), rng.random_range(0.4..2.5), rng.random_range(0.4..2.5));
    let shear = Mat3::from_cols(Vec3::X, Vec3::new(rng.random_range(-0.5..0.5), 1.0, 0.0), Vec3::Z);
    Affine3A::from_mat3_translation(
        Mat3::from_quat(random::rotation3(rng)) * shear * Mat3::from_diagonal(scale),
        random::point3(rng, 1.0),
    )
}

fn metaballs(rng: &mut TestRng) -> MetaballField {
    let balls = (0..5)
        .map(|_| Metaball {
            center: random::point3(rng, 0.8),
            radius: rng.random_range(0.4..1.0),
            weight: rng.random_range(0.5..2.0),
        })
        .collect();
    MetaballField::new(balls, 0.5).unwrap()
}

/// One of every kind of field, boxed, for the contract tests.
fn every_field(rng: &mut TestRng) -> Vec<(&'static str, Box<dyn Field3>)> {
    let ball = BallField::new(random::point3(rng, 0.5), rng.random_range(0.2..1.0)).unwrap();
    let cuboid = CuboidField::new(random::point3(rng, 0.5), Vec3::new(0.3, 0.6, 0.9)).unwrap();
    let capsule = CapsuleField::new(random::point3(rng, 0.5), random::point3(rng, 0.5), 0.3).unwrap();
    let torus = TorusField::new(random::point3(rng, 0.5), 0.8, 0.25).unwrap();
    vec![
        ("ball", Box::new(ball)),
        ("cuboid", Box::new(cuboid)),
        ("capsule", Box::new(capsule)),
        ("torus", Box::new(torus)),
        ("metaballs", Box::new(metaballs(rng))),
        ("union", Box::new(Union(ball, torus))),
        ("intersection", Box::new(Intersection(cuboid, capsule))),
        ("subtraction", Box::new(Subtraction(cuboid, ball))),
        ("smooth union", Box::new(SmoothUnion::new(capsule, torus, 0.3).unwrap())),
        ("placed cuboid", Box::new(PlacedField::new(cuboid, random_affine(rng)).unwrap())),
        ("placed metaballs", Box::new(PlacedField::new(metaballs(rng), random_affine(rng)).unwrap())),
    ]
}

#[test]
fn analytic_distances_equal_their_references() {
    let mut rng = random::rng(1);
    for _ in 0..cases(CASES) {
        let p = random::point3(&mut rng, 2.0);
        let center = random::point3(&mut rng, 0.5);
        let half =
            Vec3::new(rng.random_range(0.1..1.0), rng.random_range(0.1..1.0), rng.random_range(0.1..1.0));
        let cuboid = CuboidField::new(center, half).unwrap();
        let expected = reference::cuboid_signed_distance(p, center, half);
        assert!((f64::from(cuboid.value(p)) - expected).abs() < 1e-5, "cuboid at {p}");

        let radius = rng.random_range(0.1..1.0);
        let ball = BallField::new(center, radius).unwrap();
        let expected = p.as_dvec3().distance(center.as_dvec3()) - f64::from(radius);
        assert!((f64::from(ball.value(p)) - expected).abs() < 1e-5, "ball at {p}");

        let (a, b) = (random::point3(&mut rng, 1.0), random::point3(&mut rng, 1.0));
        let capsule = CapsuleField::new(a, b, radius).unwrap();
        // The sampled reference is above the truth by at most half the sample spacing.
        let sampled = reference::capsule_signed_distance_sampled(p, a, b, radius, 2000);
        let got = f64::from(capsule.value(p));
        assert!(got <= sampled + 1e-5 && got >= sampled - 1e-3, "capsule at {p}: {got} vs {sampled}");

        let (major, minor) = (rng.random_range(0.3..1.0), rng.random_range(0.05..0.3));
        let torus = TorusField::new(center, major, minor).unwrap();
        let sampled = reference::torus_signed_distance_sampled(p, center, major, minor, 4000);
        let got = f64::from(torus.value(p));
        assert!(got <= sampled + 1e-5 && got >= sampled - 1e-3, "torus at {p}: {got} vs {sampled}");
    }
}

/// Gradients equal finite differences wherever the field is smooth at the scale of the step (the
/// creases of min/max combinations and of the cuboid, and the axis of the torus, are skipped by
/// comparing against the differences on both sides).
#[test]
fn gradients_equal_finite_differences() {
    let mut rng = random::rng(2);
    let fields = every_field(&mut rng);
    for (name, field) in &fields {
        let mut compared = 0;
        for _ in 0..cases(CASES) {
            let p = random::point3(&mut rng, 2.0);
            let h = 1e-3;
            let f = |q: DVec3| f64::from(field.value(q.as_vec3()));
            let central = reference::finite_difference_gradient(f, p.as_dvec3(), h);
            let fine = reference::finite_difference_gradient(f, p.as_dvec3(), h / 4.0);
            // A crease within the step shows as disagreeing differences: skip those points.
            if central.distance(fine) > 1e-2 {
                continue;
            }
            let (value, gradient) = field.value_and_gradient(p);
            assert_eq!(value, field.value(p), "{name}: value_and_gradient's value at {p}");
            let error = gradient.as_dvec3().distance(central);
            assert!(error < 2e-2 * (1.0 + central.length()), "{name} at {p}: {gradient} vs {central}");
            compared += 1;
        }
        assert!(compared > cases(CASES) * 9 / 10, "{name}: only {compared} smooth points");
    }
}

#[test]
fn values_respect_the_lipschitz_bound_and_the_bounds() {
    let mut rng = random::rng(3);
    for (name, field) in every_field(&mut rng) {
        let lipschitz = field.lipschitz();
        assert!(lipschitz.is_finite() && lipschitz > 0.0, "{name}");
        for _ in 0..cases(CASES) {
            let (p, q) = (random::point3(&mut rng, 3.0), random::point3(&mut rng, 3.0));
            let q = p + (q - p) * rng.random_range(0.0..1.0f32).powi(3);
            if p.distance(q) < 1e-4 {
                continue; // rounding dominates the slope of a tiny step
            }
            let slope = (field.value(p) - field.value(q)).abs() / p.distance(q);
            assert!(slope <= lipschitz * 1.001 + 1e-4, "{name}: slope {slope} > {lipschitz}");
        }
        for level in [0.0, 0.1, 0.5] {
            let Some(bounds) = field.bounds_beyond(level) else { continue };
            let grown = bounds.expanded(1.0);
            for _ in 0..1000 {
                let p = grown.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * grown.size();
                if !bounds.contains_point(p) {
                    assert!(
                        field.value(p) > level,
                        "{name}: {} ≤ {level} at {p} outside {bounds:?}",
                        field.value(p)
                    );
                }
            }
        }
    }
}

#[test]
fn placed_fields_map_the_solid_exactly() {
    let mut rng = random::rng(4);
    let ball = BallField::new(Vec3::ZERO, 1.0).unwrap();
    for _ in 0..cases(CASES) {
        let map = random_affine(&mut rng);
        let placed = PlacedField::new(ball, map).unwrap();
        // A point inside the unit ball, mapped: inside the ellipsoid; and back.
        let local = random::point3(&mut rng, 1.2);
        let world = map.transform_point3(local);
        let expected = local.length() - 1.0;
        assert!((placed.value(world) - expected).abs() < 1e-4, "{world}");
        // The gradient is normal to the mapped surface: orthogonal to mapped tangents.
        let (_, gradient) = placed.value_and_gradient(world);
        let tangent = local.normalize_or(Vec3::X).any_orthonormal_vector();
        let mapped_tangent = map.transform_vector3(tangent);
        let dot = gradient.normalize().dot(mapped_tangent.normalize());
        assert!(dot.abs() < 1e-3 || local.length() < 1e-3, "{dot} at {local} under {map:?}");
    }
    assert_eq!(
        PlacedField::new(ball, Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0))).unwrap_err(),
        FieldError::NotInvertible
    );
    assert_eq!(
        PlacedField::new(ball, Affine3A::from_translation(Vec3::NAN)).unwrap_err(),
        FieldError::NotInvertible
    );
}

#[test]
fn bad_parameters_are_refused() {
    fn invalid<T>(r: Result<T, FieldError>) -> bool {
        matches!(r, Err(FieldError::InvalidParameter(_)))
    }
    assert!(invalid(BallField::new(Vec3::ZERO, 0.0)));
    assert!(invalid(BallField::new(Vec3::NAN, 1.0)));
    assert!(invalid(BallField::new(Vec3::ZERO, f32::INFINITY)));
    assert!(invalid(CuboidField::new(Vec3::ZERO, Vec3::new(1.0, -1.0, 1.0))));
    assert!(invalid(CapsuleField::new(Vec3::ZERO, Vec3::X, f32::NAN)));
    assert!(invalid(TorusField::new(Vec3::ZERO, -1.0, 0.2)));
    assert!(invalid(TorusField::new(Vec3::ZERO, 1.0, 0.0)));
    assert!(invalid(MetaballField::new(Vec::new(), 0.5)));
    let ball = Metaball { center: Vec3::ZERO, radius: 1.0, weight: 1.0 };
    assert!(invalid(MetaballField::new(vec![ball], 0.0)));
    assert!(invalid(MetaballField::new(vec![Metaball { weight: -1.0, ..ball }], 0.5)));
    let unit = BallField::new(Vec3::ZERO, 1.0).unwrap();
    assert!(invalid(SmoothUnion::new(unit, unit, 0.0)));
    // NaN queries give NaN values, never a panic.
    assert!(unit.value(Vec3::NAN).is_nan());
    assert!(CuboidField::new(Vec3::ZERO, Vec3::ONE).unwrap().value_and_gradient(Vec3::NAN).0.is_nan());
}

fn asteroid(seed: u64, triangles: usize) -> TriMesh {
    let data = shapes::asteroid(seed, triangles);
    TriMesh::new(data.vertices, data.triangles).unwrap()
}

#[test]
fn grid_from_mesh_is_within_its_error_bound() {
    let mesh = asteroid(7, 3000);
    let cell = mesh.bounds().size().max_element() / 32.0;
    let mut reports = Vec::new();
    let grid =
        GridField::from_mesh_with_progress(&mesh, cell, |done, total| reports.push((done, total))).unwrap();
    let total = grid.dims()[2];
    assert_eq!(reports.last(), Some(&(total, total)), "progress ends at the total");
    assert!(reports.windows(2).all(|w| w[0].0 < w[1].0), "progress grows");
    let bound = grid.interpolation_error();
    assert!((bound - 0.5 * 3f32.sqrt() * cell).abs() < 1e-6);
    let mut rng = random::rng(8);
    let region = grid.grid_bounds().expanded(cell * 3.0);
    let (mut inside, mut outside) = (0, 0);
    for _ in 0..cases(CASES) {
        let p = region.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * region.size();
        let exact = mesh.signed_distance(p).unwrap();
        let value = grid.value(p);
        if grid.grid_bounds().contains_point(p) {
            assert!(
                (value - exact).abs() <= bound + 1e-4,
                "at {p}: grid {value}, mesh {exact}, bound {bound}"
            );
        } else {
            assert!(value > 0.0 && exact > 0.0, "outside the grid at {p}: {value}");
        }
        // Beyond the error bound, grid and mesh agree on the side.
        if exact.abs() > bound + 1e-4 {
            assert_eq!(value < 0.0, exact < 0.0, "side at {p}");
            if exact < 0.0 { inside += 1 } else { outside += 1 }
        }
        let slope_ok = grid.value_and_gradient(p).1.length() <= grid.lipschitz() * 1.0001;
        assert!(slope_ok, "gradient longer than the Lipschitz bound at {p}");
    }
    assert!(inside > cases(CASES) / 20 && outside > cases(CASES) / 20, "{inside} inside, {outside} outside");
}

#[test]
fn grid_construction_refuses_bad_input() {
    let mesh = asteroid(9, 800);
    for cell in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        assert!(matches!(GridField::from_mesh(&mesh, cell), Err(FieldError::InvalidParameter(_))), "{cell}");
    }
    let tiny = mesh.bounds().size().max_element() / 1e4;
    assert!(matches!(
        GridField::from_mesh(&mesh, tiny),
        Err(FieldError::TooManyCells { limit: MAX_GRID_VERTICES, .. })
    ));
    // An open mesh (one triangle) has no inside.
    let open = TriMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]).unwrap();
    assert_eq!(GridField::from_mesh(&open, 0.1).unwrap_err(), FieldError::NotSolid);
    assert_eq!(SpatialSignature::from_mesh(&open, 0.1).unwrap_err(), FieldError::NotSolid);
    // A field without bounds cannot be sampled.
    let unbounded =
        Subtraction(BallField::new(Vec3::ZERO, 1.0).unwrap(), BallField::new(Vec3::ZERO, 0.5).unwrap());
    assert!(GridField::from_field(&unbounded, 0.1).is_ok(), "a subtraction keeps its first operand's box");
    let metaballs =
        MetaballField::new(vec![Metaball { center: Vec3::ZERO, radius: 1.0, weight: 1.0 }], 0.5).unwrap();
    assert!(GridField::from_field(&metaballs, 0.05).is_ok());
}

/// Every kind of signature: a clear bit is a guarantee that the point is outside, and the
/// signature clears a good share of the box (else it would prune nothing).
#[test]
fn signature_clear_cells_are_outside() {
    let mesh = asteroid(10, 3000);
    let size = mesh.bounds().size().max_element();
    let grid = GridField::from_mesh(&mesh, size / 24.0).unwrap();
    let field = metaballs(&mut random::rng(11));
    let signatures = [
        ("mesh", SpatialSignature::from_mesh(&mesh, size / 16.0).unwrap()),
        ("grid", SpatialSignature::from_grid(&grid, 2).unwrap()),
        ("field", SpatialSignature::from_field(&field, 0.1).unwrap()),
    ];
    let mut rng = random::rng(12);
    for (name, signature) in &signatures {
        let (set, total) = signature.occupancy();
        assert!(set > 0 && set < total * 9 / 10, "{name}: {set} of {total} cells set");
        let region =
            if *name == "field" { field.bounds().unwrap() } else { grid.grid_bounds() }.expanded(0.2);
        let mut cleared = 0;
        for _ in 0..100_000 {
            let p = region.min + (random::point3(&mut rng, 0.5) + Vec3::splat(0.5)) * region.size();
            if signature.may_contain(p) {
                continue;
            }
            cleared += 1;
            let outside = match *name {
                "mesh" => mesh.contains_point(p) == Some(false),
                "grid" => grid.value(p) > 0.0,
                _ => field.value(p) > 0.0,
            };
            assert!(outside, "{name}: cleared point {p} is inside");
        }
        assert!(cleared > 10_000, "{name}: only {cleared} points cleared");
        assert!(signature.may_contain(Vec3::NAN));
    }
}

/// Points on one asteroid (its vertices) against another's grid field under random relative
/// poses: the first point inside and the contacts equal a brute-force scan, with and without the
/// signature, which prunes most points.
#[test]
fn point_sets_against_a_grid_equal_brute_force() {
    let a = asteroid(13, 1000);
    let b = asteroid(14, 3000);
    let size = b.bounds().size().max_element();
    let grid = GridField::from_mesh(&b, size / 32.0).unwrap();
    let signature = SpatialSignature::from_grid(&grid, 1).unwrap();
    let mut rng = random::rng(15);
    let (mut hits, mut pruned, mut evaluated) = (0, 0, 0);
    let (mut with, mut without) = (Vec::<FieldContact>::new(), Vec::<FieldContact>::new());
    let n = cases(CASES);
    for _ in 0..n {
        let pose = Affine3A::from_scale_rotation_translation(
            Vec3::splat(rng.random_range(0.5..1.2)),
            random::rotation3(&mut rng),
            random::unit3(&mut rng) * size * rng.random_range(0.3..1.3),
        );
        let expected = a.vertices().iter().position(|&p| grid.value(pose.transform_point3(p)) <= 0.0);
        let mut stats = PointFieldStats::default();
        assert_eq!(
            first_point_inside(a.vertices(), &pose, &grid, &Affine3A::IDENTITY, None, &mut stats),
            expected
        );
        let mut stats = PointFieldStats::default();
        assert_eq!(
            first_point_inside(a.vertices(), &pose, &grid, &Affine3A::IDENTITY, Some(&signature), &mut stats),
            expected
        );
        hits += usize::from(expected.is_some());
        let stats =
            field_contacts(a.vertices(), &pose, &grid, &Affine3A::IDENTITY, Some(&signature), &mut with);
        field_contacts(a.vertices(), &pose, &grid, &Affine3A::IDENTITY, None, &mut without);
        assert_eq!(with, without);
        pruned += stats.pruned;
        evaluated += stats.evaluated;
        for c in &with {
            assert!(c.separation <= 0.0 && (c.normal.length() - 1.0).abs() < 1e-3 || c.normal == Vec3::ZERO);
            assert_eq!(c.point, pose.transform_point3(a.vertices()[c.index as usize]));
        }
    }
    assert!(hits > n / 5 && hits < n * 4 / 5, "{hits} of {n} poses intersect");
    assert!(pruned > 2 * evaluated, "the signature pruned {pruned} and let {evaluated} through");
}

/// Two fields: `Separated` and `Intersecting` are always right, and `Undecided` only happens
/// when the solids are within a few tolerances of touching.
#[test]
fn field_pairs_equal_the_analytic_answer() {
    let mut rng = random::rng(16);
    let tolerance = 1e-3;
    let (mut intersecting, mut separated, mut undecided) = (0, 0, 0);
    let n = cases(CASES);
    for i in 0..n {
        let ra = rng.random_range(0.2..1.0);
        let rb = rng.random_range(0.2..1.0);
        let a = BallField::new(random::point3(&mut rng, 1.0), ra).unwrap();
        let b = BallField::new(random::point3(&mut rng, 1.0), rb).unwrap();
        // Half the pairs scaled by a common affine map (the answer does not change).
        let map = if i % 2 == 0 { Affine3A::IDENTITY } else { random_affine(&mut rng) };
        let (pa, pb) = (PlacedField::new(a, map).unwrap(), PlacedField::new(b, map).unwrap());
        let gap = a.center.distance(b.center) - ra - rb;
        match fields_intersect(&pa, &pb, tolerance) {
            FieldsIntersection::Intersecting { point } => {
                assert!(gap < 1e-4, "intersecting with gap {gap}");
                assert!(pa.value(point) <= 0.0 && pb.value(point) <= 0.0);
                intersecting += 1;
            }
            FieldsIntersection::Separated => {
                assert!(gap > -1e-4, "separated with gap {gap}");
                separated += 1;
            }
            FieldsIntersection::Undecided { .. } => {
                assert!(gap.abs() < 0.05, "undecided with gap {gap}");
                undecided += 1;
            }
        }
    }
    assert!(intersecting > n / 5 && separated > n / 5, "{intersecting} intersecting, {separated} separated");
    assert!(undecided < n / 50, "{undecided} undecided");
    // A torus around a ball in its hole: close, not touching.
    let torus = TorusField::new(Vec3::ZERO, 1.0, 0.3).unwrap();
    let ball = BallField::new(Vec3::ZERO, 0.65).unwrap();
    assert_eq!(fields_intersect(&torus, &ball, 1e-3), FieldsIntersection::Separated);
    let ball = BallField::new(Vec3::ZERO, 0.75).unwrap();
    assert!(matches!(fields_intersect(&torus, &ball, 1e-3), FieldsIntersection::Intersecting { .. }));
    assert!(matches!(fields_intersect(&torus, &ball, f32::NAN), FieldsIntersection::Undecided { .. }));
}
