//! Bad input to the world: every refused edit returns its `WorldError` and leaves the world as
//! it was, and bad query arguments return theirs.
//!
//! - Edits: non-finite placements (NaN, infinite; translation or linear part), invalid convex
//!   shapes (negative or NaN sizes), singular placements of meshes, sphere sets and compounds
//!   (convex shapes accept them: flattened), boxes that overflow, non-finite velocities (and
//!   finite ones whose lookahead box overflows), stale handles (removed, removed twice, moved,
//!   re-filtered after removal, after their slot was reused), handles of another world.
//! - "As it was" is checked against the brute-force model
//!   (`kollide_testkit::reference_world::ModelWorld`) given only the accepted edits: the number of
//!   colliders, each collider's placement, filter, user data and velocity, the touching pairs,
//!   the events of the next step, and where scene queries find the colliders.
//! - Queries: NaN or infinite rays, NaN reaches, NaN velocities and placements of cast shapes,
//!   invalid and singular query shapes, bad boxes, points and distances.
//!
//! Also: touching and manifold separations are exact to a millimetre 10 km from the origin, and
//! a handle is 8 bytes.

use std::sync::Arc;

use glam::{Affine3A, Mat3, Quat, Vec3};
use kollide::bounds::Aabb3;
use kollide::math::Ray3;
use kollide::mesh::TriMesh;
use kollide::query::{Operand, QueryError, Shape};
use kollide::shape::{Ball, Capsule, ConvexShape, Cuboid, Rounded};
use kollide::world::{
    ColliderDesc3, ColliderHandle, CollisionEvent, CollisionFilter, EventKind, QueryFilter, World3,
    WorldError, WorldSettings,
};
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_world::{
    ModelWorld, SceneMix, SceneRoles, event_set, nudged, random_desc, random_filter, random_placement,
    random_scene_shape,
};
use rand::Rng;

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;

/// Placements a query refuses as non-finite: NaN or infinite in the translation or the linear
/// part.
fn non_finite_placements() -> Vec<Affine3A> {
    let mut out = Vec::new();
    for bad in [NAN, INF, -INF] {
        out.push(Affine3A::from_translation(Vec3::new(0.0, bad, 0.0)));
        let mut m = Affine3A::IDENTITY;
        m.matrix3.z_axis.x = bad;
        out.push(m);
    }
    out
}

/// Singular linear maps: a zero axis, a flattening, a rank-one map.
fn singular_placements() -> Vec<Affine3A> {
    vec![
        Affine3A::from_scale(Vec3::new(1.0, 0.0, 1.0)),
        Affine3A::from_mat3_translation(
            Mat3::from_quat(Quat::from_rotation_y(0.7)) * Mat3::from_diagonal(Vec3::new(2.0, 1.0, 0.0)),
            Vec3::new(0.5, 0.0, 0.0),
        ),
        Affine3A::from_mat3(Mat3::from_cols(Vec3::X, Vec3::X * 2.0, Vec3::X * -1.0)),
    ]
}

fn invalid_convex_shapes() -> Vec<Shape> {
    let c = |s: ConvexShape| Shape::Convex(s);
    vec![
        c(Ball::new(-1.0).into()),
        c(Ball::new(NAN).into()),
        c(Ball::new(INF).into()),
        c(Capsule::new(0.5, -0.1).into()),
        c(Cuboid::new(Vec3::new(1.0, -1.0, 1.0)).into()),
        c(Cuboid::new(Vec3::new(1.0, NAN, 1.0)).into()),
        c(Rounded::new(Cuboid::new(Vec3::ONE), -0.2).into()),
    ]
}

fn mesh() -> Arc<TriMesh> {
    Arc::new(TriMesh::from_data(kollide_testkit::shapes::icosphere(0)).unwrap())
}

/// The shapes that must invert their placement: a mesh, a sphere set, a compound.
fn inverted_shapes(rng: &mut TestRng) -> Vec<Shape> {
    let mut out = vec![Shape::Mesh(mesh())];
    while out.len() < 3 {
        let s =
            random_scene_shape(rng, SceneMix { convex: 0, mesh: 0, sphere_set: 1, compound: 1, field: 0 });
        if !out.iter().any(|o| o.kind() == s.kind()) {
            out.push(s);
        }
    }
    out
}

/// The world and the model with only the accepted edits.
struct Pair {
    world: World3,
    model: ModelWorld,
    rng: TestRng,
    half: f32,
    removed: Vec<ColliderHandle>,
    /// Refused edits so far, by kind.
    refused: std::collections::BTreeMap<&'static str, usize>,
}

impl Pair {
    fn new(seed: u64, len: usize) -> Self {
        Self::with_settings(seed, len, WorldSettings::default())
    }

    fn with_settings(seed: u64, len: usize, settings: WorldSettings) -> Self {
        let mut p = Pair {
            world: World3::with_settings(settings),
            model: ModelWorld::new(),
            rng: random::rng(seed),
            half: 0.8 * (len as f32).cbrt(),
            removed: Vec::new(),
            refused: Default::default(),
        };
        for _ in 0..len {
            let desc = p.desc();
            p.insert(desc);
        }
        p
    }

    fn desc(&mut self) -> ColliderDesc3 {
        random_desc(&mut self.rng, SceneMix::SOLIDS, SceneRoles { sensor: 0.1, fixed: 0.15 }, self.half)
    }

    fn insert(&mut self, desc: ColliderDesc3) {
        let h = self.world.insert(desc.clone()).unwrap();
        self.model.insert(h, &desc);
    }

    fn pick(&mut self) -> ColliderHandle {
        let handles = self.model.handles();
        handles[self.rng.random_range(0..handles.len())]
    }

    /// The world's state that a refused edit must not change.
    fn snapshot(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .world
            .colliders()
            .map(|(h, c)| {
                format!(
                    "{h:?} {:?} {:?} {} {:?} {:?} {} {}",
                    c.placement(),
                    c.filter(),
                    c.user_data(),
                    c.velocity(),
                    c.bounds(),
                    c.is_sensor(),
                    c.is_fixed()
                )
            })
            .collect();
        out.push(format!("{:?}", self.world.touching_pairs().collect::<Vec<_>>()));
        out.push(format!("{:?}", self.world.events()));
        out.push(format!("len {} steps {}", self.world.len(), self.world.steps()));
        out
    }

    /// Runs a bad edit: it must give `expected` and change nothing.
    fn refuse(
        &mut self,
        what: &'static str,
        expected: WorldError,
        edit: impl FnOnce(&mut World3) -> Result<(), WorldError>,
    ) {
        let before = self.snapshot();
        let result = edit(&mut self.world);
        assert_eq!(result, Err(expected), "{what}");
        assert_eq!(self.snapshot(), before, "{what}: the world changed");
        *self.refused.entry(what).or_default() += 1;
    }

    /// One bad edit of a random kind.
    fn bad_edit(&mut self, other: &mut World3, foreign: ColliderHandle) {
        let h = self.pick();
        let placement = self.model.get(h).unwrap().placement;
        let is_convex = matches!(self.model.get(h).unwrap().shape, Shape::Convex(_));
        let bad = non_finite_placements();
        let bad = bad[self.rng.random_range(0..bad.len())];
        let singular = singular_placements();
        let singular = singular[self.rng.random_range(0..singular.len())];
        let non_finite = WorldError::Query(QueryError::NonFinitePlacement(Operand::A));
        match self.rng.random_range(0..12) {
            0 => {
                let desc = ColliderDesc3 { placement: bad, ..self.desc() };
                self.refuse("insert, non-finite placement", non_finite, |w| w.insert(desc).map(|_| ()));
            }
            1 => {
                let shapes = invalid_convex_shapes();
                let shape = shapes[self.rng.random_range(0..shapes.len())].clone();
                let desc = ColliderDesc3 { shape, ..self.desc() };
                let expected = WorldError::Query(QueryError::InvalidShape(Operand::A));
                self.refuse("insert, invalid shape", expected, |w| w.insert(desc).map(|_| ()));
            }
            2 => {
                let shapes = inverted_shapes(&mut self.rng);
                let shape = shapes[self.rng.random_range(0..shapes.len())].clone();
                let desc = ColliderDesc3 { shape, placement: singular, ..self.desc() };
                let expected = WorldError::Query(QueryError::SingularPlacement(Operand::A));
                self.refuse("insert, singular placement", expected, |w| w.insert(desc).map(|_| ()));
            }
            3 => {
                // A finite placement whose box overflows: a box around its origin, scaled and
                // moved to 3e38 (a convex shape: the others would find the placement singular
                // first, its determinant overflowing; and not any convex shape, which may lie on
                // the far side of its origin).
                let half = Vec3::splat(self.rng.random_range(0.2..1.2));
                let shape = Shape::Convex(Cuboid::new(half).into());
                let placement = Affine3A::from_scale_rotation_translation(
                    Vec3::splat(3e38),
                    Quat::IDENTITY,
                    Vec3::splat(3e38),
                );
                let desc = ColliderDesc3 { shape, placement, ..self.desc() };
                self.refuse("insert, unbounded box", WorldError::UnboundedShape, |w| {
                    w.insert(desc).map(|_| ())
                });
            }
            4 => self.refuse("set_placement, non-finite", non_finite, |w| w.set_placement(h, bad)),
            5 if !is_convex => {
                let expected = WorldError::Query(QueryError::SingularPlacement(Operand::A));
                self.refuse("set_placement, singular", expected, |w| w.set_placement(h, singular));
            }
            6 => {
                let v = [Vec3::new(NAN, 0.0, 0.0), Vec3::new(0.0, INF, 1.0), Vec3::splat(-INF)];
                let v = v[self.rng.random_range(0..3)];
                let to = nudged(&mut self.rng, &placement, 0.3, 0.3, self.half);
                self.refuse("set_motion, non-finite velocity", WorldError::NonFiniteVelocity, |w| {
                    w.set_motion(h, to, v)
                });
            }
            7 => {
                self.refuse("set_motion, non-finite placement", non_finite, |w| w.set_motion(h, bad, Vec3::X))
            }
            8 => {
                if let Some(&dead) = self.removed.last() {
                    let to = random_placement(&mut self.rng, self.half);
                    let stale = WorldError::StaleHandle(dead);
                    match self.rng.random_range(0..6) {
                        0 => self.refuse("remove, stale", stale, |w| w.remove(dead).map(|_| ())),
                        1 => self.refuse("set_placement, stale", stale, |w| w.set_placement(dead, to)),
                        2 => self.refuse("set_motion, stale", stale, |w| w.set_motion(dead, to, Vec3::X)),
                        3 => self.refuse("set_filter, stale", stale, |w| {
                            w.set_filter(dead, CollisionFilter::NONE)
                        }),
                        4 => self.refuse("set_user_data, stale", stale, |w| w.set_user_data(dead, 7)),
                        _ => self.refuse("collider, stale", stale, |w| w.collider(dead).map(|_| ())),
                    }
                    assert!(!self.world.contains(dead));
                }
            }
            9 => {
                let foreign_error = WorldError::ForeignHandle(foreign);
                let to = random_placement(&mut self.rng, self.half);
                match self.rng.random_range(0..5) {
                    0 => self.refuse("remove, foreign", foreign_error, |w| w.remove(foreign).map(|_| ())),
                    1 => {
                        self.refuse("set_placement, foreign", foreign_error, |w| w.set_placement(foreign, to))
                    }
                    2 => self
                        .refuse("set_motion, foreign", foreign_error, |w| w.set_motion(foreign, to, Vec3::Y)),
                    3 => self.refuse("set_filter, foreign", foreign_error, |w| {
                        w.set_filter(foreign, CollisionFilter::ALL)
                    }),
                    _ => {
                        self.refuse("set_user_data, foreign", foreign_error, |w| w.set_user_data(foreign, 3))
                    }
                }
                assert!(!self.world.contains(foreign));
                // And a handle of this world is foreign to the other one.
                assert_eq!(other.set_placement(h, to), Err(WorldError::ForeignHandle(h)));
            }
            10 => {
                // Bad and stale together: the handle is checked first.
                if let Some(&dead) = self.removed.last() {
                    self.refuse("set_placement, stale and non-finite", WorldError::StaleHandle(dead), |w| {
                        w.set_placement(dead, bad)
                    });
                }
            }
            _ => {
                // Velocity checked before the placement.
                let v = Vec3::new(0.0, 0.0, NAN);
                self.refuse("set_motion, both non-finite", WorldError::NonFiniteVelocity, |w| {
                    w.set_motion(h, bad, v)
                });
            }
        }
    }

    /// One good edit of a random kind, on both.
    fn good_edit(&mut self) {
        match self.rng.random_range(0..10) {
            0 if self.model.len() > 6 => {
                let h = self.pick();
                self.world.remove(h).unwrap();
                self.model.remove(h);
                self.removed.push(h);
            }
            1 if self.model.len() < 30 => {
                let desc = self.desc();
                self.insert(desc);
            }
            2 => {
                // A convex shape flattened by a singular placement: accepted.
                let mut desc = self.desc();
                desc.shape = Shape::Convex(kollide_testkit::reference_world::random_convex(&mut self.rng));
                let flat = singular_placements()[self.rng.random_range(0..2)];
                desc.placement.matrix3 = flat.matrix3 * desc.placement.matrix3;
                self.insert(desc);
            }
            3 => {
                let h = self.pick();
                let filter = random_filter(&mut self.rng);
                self.world.set_filter(h, filter).unwrap();
                self.model.set_filter(h, filter);
            }
            _ => {
                let h = self.pick();
                let old = self.model.get(h).unwrap().placement;
                let to = nudged(&mut self.rng, &old, 0.3, 0.3, self.half);
                if self.rng.random_bool(0.5) {
                    self.world.set_placement(h, to).unwrap();
                } else {
                    self.world.set_motion(h, to, random::point3(&mut self.rng, 3.0)).unwrap();
                }
                self.model.set_placement(h, to);
            }
        }
    }

    /// The world against the model after a step.
    fn check(&self, context: &str) {
        assert_eq!(self.world.len(), self.model.len(), "{context}");
        assert_eq!(
            self.world.colliders().map(|(h, _)| h).collect::<Vec<_>>(),
            self.model.handles(),
            "{context}"
        );
        for (h, c) in self.world.colliders() {
            let m = self.model.get(h).unwrap();
            assert_eq!((c.placement(), c.filter()), (&m.placement, m.filter), "{context}: {h:?}");
        }
        assert_eq!(self.world.touching_pairs().collect::<Vec<_>>(), self.model.touching_pairs(), "{context}");
        assert_eq!(event_set(self.world.events()).0, self.model.events(), "{context}");
        // Scene queries find each collider where the model has it: the box around it overlaps
        // exactly the colliders the model says.
        for (h, _) in self.model.colliders().step_by(5) {
            let region = *self.world.collider(h).unwrap().bounds();
            let mut got = Vec::new();
            self.world.overlap_box(&region, &QueryFilter::new(), &mut got).unwrap();
            let half = (region.max - region.min) / 2.0;
            let cuboid = Shape::Convex(ConvexShape::Cuboid(Cuboid::new(half)));
            let at = Affine3A::from_translation((region.min + region.max) / 2.0);
            assert_eq!(
                got,
                self.model.overlapping(&cuboid, &at, &QueryFilter::new()),
                "{context}: box of {h:?}"
            );
        }
    }
}

#[test]
fn bad_edits_change_nothing() {
    let sequences = kollide_testkit::cases(20);
    let mut refused = std::collections::BTreeMap::new();
    for seq in 0..sequences {
        let mut rng = random::rng(0x6564_6974_7300_0000 + seq as u64);
        let len = rng.random_range(8..=24);
        let mut pair = Pair::new(rng.random(), len);
        // Another world and one of its handles.
        let mut other = World3::new();
        let foreign = other
            .insert(ColliderDesc3::new(Shape::Convex(Ball::new(1.0).into()), Affine3A::IDENTITY))
            .unwrap();
        for step in 0..100 {
            for _ in 0..rng.random_range(0..4) {
                if rng.random_bool(0.5) {
                    pair.good_edit();
                } else {
                    pair.bad_edit(&mut other, foreign);
                }
            }
            pair.world.step();
            pair.model.step();
            pair.check(&format!("sequence {seq}, step {step}"));
        }
        for (what, n) in &pair.refused {
            *refused.entry(*what).or_insert(0) += n;
        }
    }
    println!("refused edits: {refused:?}");
    // Every kind of bad edit was tried (all 21 at the default strength; a tenth of it draws
    // fewer).
    let kinds = if sequences >= 20 { 21 } else { 12 };
    assert!(refused.len() >= kinds, "{} kinds: {refused:?}", refused.len());
}

/// Each bad edit on a small scene that touches, one at a time, with its error; then the next
/// step equals the model's.
#[test]
fn each_bad_edit_gets_its_error() {
    let mut rng = random::rng(0x6261_6400_0000_0000);
    let mut pair = Pair::new(1, 0);
    // Two touching boxes and a mesh around them.
    let cube = |h: f32| Shape::Convex(Cuboid::new(Vec3::splat(h)).into());
    for desc in [
        ColliderDesc3::new(cube(1.0), Affine3A::IDENTITY),
        ColliderDesc3::new(cube(0.5), Affine3A::from_translation(Vec3::new(1.2, 0.0, 0.1))),
        // An icosahedron of circumradius 0.9: inside A, its vertex (0.77, 0, 0.47) in B.
        ColliderDesc3::new(Shape::Mesh(mesh()), Affine3A::from_scale(Vec3::splat(0.9))).sensor(true),
    ] {
        pair.insert(desc);
    }
    pair.world.step();
    pair.model.step();
    pair.check("start");
    assert_eq!(pair.world.touching_pairs().count(), 3);
    let [a, b, m] = pair.model.handles()[..] else { panic!() };
    let non_finite = WorldError::Query(QueryError::NonFinitePlacement(Operand::A));
    let singular = WorldError::Query(QueryError::SingularPlacement(Operand::A));
    let invalid = WorldError::Query(QueryError::InvalidShape(Operand::A));
    for bad in non_finite_placements() {
        pair.refuse("insert", non_finite, |w| w.insert(ColliderDesc3::new(cube(1.0), bad)).map(|_| ()));
        pair.refuse("set_placement", non_finite, |w| w.set_placement(a, bad));
        pair.refuse("set_motion", non_finite, |w| w.set_motion(m, bad, Vec3::ZERO));
    }
    for shape in invalid_convex_shapes() {
        pair.refuse("insert", invalid, |w| {
            w.insert(ColliderDesc3::new(shape, Affine3A::IDENTITY)).map(|_| ())
        });
    }
    for shape in inverted_shapes(&mut rng) {
        for s in singular_placements() {
            pair.refuse("insert", singular, |w| w.insert(ColliderDesc3::new(shape.clone(), s)).map(|_| ()));
        }
    }
    for s in singular_placements() {
        pair.refuse("set_placement", singular, |w| w.set_placement(m, s));
        pair.refuse("set_motion", singular, |w| w.set_motion(m, s, Vec3::X));
    }
    pair.refuse("insert", WorldError::UnboundedShape, |w| {
        w.insert(ColliderDesc3::new(cube(1e38), Affine3A::from_translation(Vec3::splat(3e38)))).map(|_| ())
    });
    let huge =
        Affine3A::from_scale_rotation_translation(Vec3::splat(1e38), Quat::IDENTITY, Vec3::splat(3e38));
    pair.refuse("set_placement", WorldError::UnboundedShape, |w| w.set_placement(a, huge));
    for v in [Vec3::new(NAN, 0.0, 0.0), Vec3::new(0.0, INF, 0.0), Vec3::new(0.0, 0.0, -INF)] {
        pair.refuse("set_motion", WorldError::NonFiniteVelocity, |w| w.set_motion(b, Affine3A::IDENTITY, v));
    }
    // A finite velocity whose lookahead box overflows.
    let mut far = World3::with_settings(WorldSettings { lookahead: 4.0, ..WorldSettings::default() });
    let h = far.insert(ColliderDesc3::new(cube(1.0), Affine3A::IDENTITY)).unwrap();
    assert_eq!(
        far.set_motion(h, Affine3A::IDENTITY, Vec3::new(f32::MAX, 0.0, 0.0)),
        Err(WorldError::NonFiniteVelocity)
    );
    assert_eq!(far.collider(h).unwrap().velocity(), None);
    // Stale handles: removed, removed twice, moved after removal, after the slot's reuse.
    let removed = pair.world.remove(b).unwrap();
    pair.model.remove(b);
    assert_eq!(removed.placement(), &Affine3A::from_translation(Vec3::new(1.2, 0.0, 0.1)));
    let stale = WorldError::StaleHandle(b);
    pair.refuse("remove", stale, |w| w.remove(b).map(|_| ()));
    pair.refuse("set_placement", stale, |w| w.set_placement(b, Affine3A::IDENTITY));
    pair.refuse("set_motion", stale, |w| w.set_motion(b, Affine3A::IDENTITY, Vec3::X));
    pair.refuse("set_filter", stale, |w| w.set_filter(b, CollisionFilter::NONE));
    pair.refuse("set_user_data", stale, |w| w.set_user_data(b, 1));
    pair.refuse("collider", stale, |w| w.collider(b).map(|_| ()));
    // The removed box's pairs end at the next step, under its stale handle.
    pair.world.step();
    pair.model.step();
    pair.check("after the removal");
    let mut ended = pair.world.events().to_vec();
    ended.sort_by_key(|e| (e.a.index(), e.b.index()));
    assert_eq!(
        ended,
        [
            CollisionEvent { a, b, kind: EventKind::ContactEnded },
            CollisionEvent { a: b, b: m, kind: EventKind::SensorEnded }
        ]
    );
    // The slot is reused under a new generation; the old handle stays stale.
    let desc = ColliderDesc3::new(cube(0.5), Affine3A::from_translation(Vec3::new(1.2, 0.0, 0.1)));
    let reused = pair.world.insert(desc.clone()).unwrap();
    pair.model.insert(reused, &desc);
    assert_eq!((reused.index(), reused.generation()), (b.index(), b.generation() + 1));
    pair.refuse("set_placement", stale, |w| w.set_placement(b, Affine3A::IDENTITY));
    pair.refuse("remove", stale, |w| w.remove(b).map(|_| ()));
    // A handle of another world.
    let mut other = World3::new();
    let foreign = other.insert(ColliderDesc3::new(cube(1.0), Affine3A::IDENTITY)).unwrap();
    assert_eq!(foreign.index(), a.index());
    let foreign_error = WorldError::ForeignHandle(foreign);
    pair.refuse("set_placement", foreign_error, |w| w.set_placement(foreign, Affine3A::IDENTITY));
    pair.refuse("remove", foreign_error, |w| w.remove(foreign).map(|_| ()));
    pair.refuse("collider", foreign_error, |w| w.collider(foreign).map(|_| ()));
    assert!(!pair.world.contains(foreign) && other.contains(foreign));
    pair.world.step();
    pair.model.step();
    pair.check("end");
    assert_eq!(pair.world.touching_pairs().count(), 3);
}

#[test]
fn bad_query_arguments_get_their_errors() {
    let mut pair = Pair::new(0x7175_6572_7900_0001, 20);
    pair.world.step();
    pair.model.step();
    let before = pair.snapshot();
    let world = &pair.world;
    let f = QueryFilter::new();
    let arg = |name| WorldError::Query(QueryError::NonFiniteArgument(name));
    let non_finite = WorldError::Query(QueryError::NonFinitePlacement(Operand::A));
    let ball = Shape::Convex(Ball::new(0.5).into());
    // Rays: NaN or infinite origin or direction, NaN reach.
    for ray in [
        Ray3::new(Vec3::new(NAN, 0.0, 0.0), Vec3::X),
        Ray3::new(Vec3::new(0.0, INF, 0.0), Vec3::X),
        Ray3::new(Vec3::ZERO, Vec3::new(0.0, 0.0, NAN)),
        Ray3::new(Vec3::ZERO, Vec3::new(-INF, 0.0, 0.0)),
    ] {
        assert_eq!(world.cast_ray(&ray, 10.0, &f).unwrap_err(), arg("ray"));
        assert_eq!(world.cast_ray_any(&ray, 10.0, &f).unwrap_err(), arg("ray"));
        let mut all = vec![(
            ColliderHandle::clone(&pair.model.handles()[0]),
            kollide::primitive::RayHit3 { t: 0.0, normal: Vec3::X, part: 0 },
        )];
        assert_eq!(world.cast_ray_all(&ray, 10.0, &f, &mut all).unwrap_err(), arg("ray"));
        assert!(all.is_empty(), "the output is cleared first");
    }
    let ray = Ray3::new(Vec3::splat(-5.0), Vec3::ONE);
    assert_eq!(world.cast_ray(&ray, NAN, &f).unwrap_err(), arg("max_t"));
    // A negative reach finds nothing; an infinite one is fine.
    assert_eq!(world.cast_ray(&ray, -1.0, &f).unwrap().map(|(h, _)| h), None);
    assert!(world.cast_ray(&ray, INF, &f).is_ok());
    let mut out = Vec::new();
    world.cast_rays(&[(ray, NAN), (ray, 1.0), (Ray3::new(Vec3::ZERO, Vec3::splat(NAN)), 1.0)], &f, &mut out);
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].as_ref().unwrap_err(), &arg("max_t"));
    assert!(out[1].is_ok());
    assert_eq!(out[2].as_ref().unwrap_err(), &arg("ray"));
    // Shape casts: velocity, reach, the shape and its placement.
    let at = Affine3A::from_translation(Vec3::splat(-3.0));
    assert_eq!(
        world.cast_shape(&ball, &at, Vec3::new(NAN, 1.0, 1.0), 5.0, &f).unwrap_err(),
        WorldError::NonFiniteVelocity
    );
    assert_eq!(
        world.cast_shape(&ball, &at, Vec3::new(INF, 1.0, 1.0), 5.0, &f).unwrap_err(),
        WorldError::NonFiniteVelocity
    );
    assert_eq!(world.cast_shape(&ball, &at, Vec3::ONE, NAN, &f).unwrap_err(), arg("max_t"));
    for bad in non_finite_placements() {
        assert_eq!(world.cast_shape(&ball, &bad, Vec3::ONE, 5.0, &f).unwrap_err(), non_finite);
        let mut out = vec![pair.model.handles()[0]];
        assert_eq!(world.overlap_shape(&ball, &bad, &f, &mut out).unwrap_err(), non_finite);
        assert!(out.is_empty());
        let mut within = vec![(pair.model.handles()[0], 0.0)];
        assert_eq!(world.colliders_within(&ball, &bad, 1.0, &f, &mut within).unwrap_err(), non_finite);
        assert!(within.is_empty());
    }
    for shape in invalid_convex_shapes() {
        let invalid = WorldError::Query(QueryError::InvalidShape(Operand::A));
        assert_eq!(world.cast_shape(&shape, &at, Vec3::ONE, 5.0, &f).unwrap_err(), invalid);
        assert_eq!(world.overlap_shape(&shape, &at, &f, &mut Vec::new()).unwrap_err(), invalid);
    }
    let singular = WorldError::Query(QueryError::SingularPlacement(Operand::A));
    for s in singular_placements() {
        let m = Shape::Mesh(mesh());
        assert_eq!(world.cast_shape(&m, &s, Vec3::ONE, 5.0, &f).unwrap_err(), singular);
        assert_eq!(world.overlap_shape(&m, &s, &f, &mut Vec::new()).unwrap_err(), singular);
    }
    // Boxes, points and distances.
    for region in [
        Aabb3::new(Vec3::new(NAN, 0.0, 0.0), Vec3::ONE),
        Aabb3::new(Vec3::ZERO, Vec3::new(1.0, INF, 1.0)),
        Aabb3::new(Vec3::ONE, Vec3::ZERO),
    ] {
        let mut out = vec![pair.model.handles()[0]];
        assert_eq!(world.overlap_box(&region, &f, &mut out).unwrap_err(), arg("region"));
        assert!(out.is_empty());
    }
    for p in [Vec3::new(NAN, 0.0, 0.0), Vec3::new(0.0, 0.0, -INF)] {
        let mut out = vec![pair.model.handles()[0]];
        assert_eq!(world.colliders_at_point(p, &f, &mut out).unwrap_err(), arg("point"));
        assert!(out.is_empty());
    }
    for d in [NAN, INF, -1.0] {
        assert_eq!(
            world.colliders_within(&ball, &at, d, &f, &mut Vec::new()).unwrap_err(),
            arg("max_distance")
        );
    }
    // Queries change nothing (the scratch buffers they share are the world's own).
    assert_eq!(pair.snapshot(), before);
    pair.world.step();
    pair.model.step();
    pair.check("after the queries");
}

/// Two unit boxes 10 km from the origin (every coordinate about 1e4, where an `f32` step is
/// 2⁻¹⁰ ≈ 0.98 mm), face to face along each axis and both ways, overlapping or apart by a few
/// steps: touching exactly when the exact faces meet, and manifold separations within a
/// millimetre of the exact gap (every input is exactly representable, so the exact gap is
/// `k · 2⁻¹⁰`). B is also turned about the contact normal (which keeps its faces exact). The
/// boxes are axis-aligned on purpose: the faces' coordinates are then exact; issue 30's
/// degenerate case (nearly axis-aligned resting boxes) only swaps which contact points a
/// manifold keeps, not its separations.
#[test]
fn touching_is_exact_ten_kilometres_from_the_origin() {
    let ulp = 1.0f32 / 1024.0;
    let far = Vec3::new(10_000.0, -10_240.0, 9_984.0);
    assert_eq!((far.x + ulp) - far.x, ulp, "the spacing of f32 at 1e4");
    let settings = WorldSettings { prediction: 0.02, ..WorldSettings::default() };
    let (mut touching_cases, mut apart_cases) = (0, 0);
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            for turned in [false, true] {
                for k in -4i32..=4 {
                    let mut world = World3::with_settings(settings);
                    let a_half = Vec3::new(1.0, 0.75, 0.5);
                    let b_half = Vec3::splat(0.5);
                    let mut normal = Vec3::ZERO;
                    normal[axis] = sign;
                    // B's centre: the faces overlap by k steps (k < 0: apart), and it is off
                    // centre in the other axes (still within A's face).
                    let mut offset = Vec3::new(0.25, -0.125, 0.0625);
                    offset[axis] = sign * (a_half[axis] + b_half[axis] - k as f32 * ulp);
                    let b_center = far + offset;
                    assert_eq!(b_center - far, offset, "exact");
                    let turn = if turned { Mat3::from_axis_angle(normal, 0.3) } else { Mat3::IDENTITY };
                    let cuboid = |h: Vec3| Shape::Convex(Cuboid::new(h).into());
                    let a = world
                        .insert(ColliderDesc3::new(cuboid(a_half), Affine3A::from_translation(far)))
                        .unwrap();
                    let b = world
                        .insert(ColliderDesc3::new(
                            cuboid(b_half),
                            Affine3A::from_mat3_translation(turn, b_center),
                        ))
                        .unwrap();
                    // Moving towards A: the lookahead box reaches A's also when apart, so the pair
                    // is a candidate and gets its manifold within the prediction distance.
                    world.set_motion(b, Affine3A::from_mat3_translation(turn, b_center), -normal).unwrap();
                    world.step();
                    let case = format!("axis {axis} sign {sign} turned {turned} k {k}");
                    let touching = world.touching_pairs().count() == 1;
                    assert_eq!(touching, k >= 0, "{case}");
                    if touching {
                        touching_cases += 1;
                        assert_eq!(
                            world.events(),
                            [CollisionEvent { a, b, kind: EventKind::ContactBegan }],
                            "{case}"
                        );
                    } else {
                        apart_cases += 1;
                    }
                    // Manifold: along the normal from A to B, separations of the exact gap.
                    let contacts: Vec<_> = world.contacts().collect();
                    assert_eq!(contacts.len(), 1, "{case}: within the prediction");
                    let exact = -k as f32 * ulp;
                    for m in contacts[0].manifolds {
                        assert!(m.manifold.normal.distance(normal) < 1e-4, "{case}: {m:?}");
                        for p in m.manifold.points() {
                            assert!(
                                (p.separation - exact).abs() < 1e-3,
                                "{case}: separation {} vs {exact}",
                                p.separation
                            );
                        }
                    }
                    assert!(!contacts[0].manifolds.is_empty(), "{case}");
                }
            }
        }
    }
    assert_eq!((touching_cases, apart_cases), (60, 48));
}

#[test]
fn a_handle_is_eight_bytes() {
    assert_eq!(std::mem::size_of::<ColliderHandle>(), 8);
}

/// Removing every collider ends every touching pair at the next step (under the stale
/// handles), leaves no contacts, and an empty world steps; colliders inserted again reuse the
/// slots under new generations and begin their pairs.
#[test]
fn removing_everything_ends_every_pair() {
    let mut pair = Pair::new(0x656d_7074_7900_0000, 24);
    pair.world.step();
    pair.model.step();
    pair.check("start");
    let touching = pair.model.touching_pairs();
    assert!(touching.len() > 3, "{touching:?}");
    for h in pair.model.handles() {
        pair.world.remove(h).unwrap();
        pair.model.remove(h);
    }
    assert!(pair.world.is_empty() && pair.world.touching_pairs().next().is_none());
    assert!(pair.world.contacts().next().is_none());
    pair.world.step();
    pair.model.step();
    pair.check("all removed");
    assert_eq!(pair.world.events().len(), touching.len());
    assert!(pair.world.events().iter().all(|e| !pair.world.contains(e.a) && !pair.world.contains(e.b)));
    pair.world.step();
    pair.model.step();
    pair.check("empty");
    assert!(pair.world.events().is_empty());
    for _ in 0..24 {
        let desc = pair.desc();
        pair.insert(desc);
    }
    assert!(pair.model.handles().iter().all(|h| h.index() < 24 && h.generation() == 1));
    pair.world.step();
    pair.model.step();
    pair.check("inserted again");
    assert!(
        pair.world
            .events()
            .iter()
            .all(|e| matches!(e.kind, EventKind::ContactBegan | EventKind::SensorBegan))
    );
}

/// Settings that are NaN or negative are replaced by zero (exact answers, no prediction, no
/// lookahead), and the world then steps like the model.
#[test]
fn bad_settings_become_zero() {
    for bad in [NAN, -1.0, -INF] {
        let settings = WorldSettings { prediction: bad, lookahead: bad, reuse_distance: bad };
        let mut pair = Pair::with_settings(0x7365_7474_0000_0000, 16, settings);
        assert_eq!(
            *pair.world.settings(),
            WorldSettings { prediction: 0.0, lookahead: 0.0, reuse_distance: 0.0 }
        );
        for step in 0..20 {
            pair.good_edit();
            pair.world.step();
            pair.model.step();
            pair.check(&format!("settings {bad}, step {step}"));
        }
    }
}
