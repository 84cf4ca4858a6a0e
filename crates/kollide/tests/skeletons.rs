//! Skeletons (`kollide::skeleton`) against the straightforward twin in
//! `kollide_testkit::reference_skeleton`, in 2D and 3D, on 10,000 seeded random scenes per test:
//! skeletons of up to 12 nodes (several roots, rigid, uniformly scaled and sheared or
//! non-uniformly scaled local maps, balls, capsules and bare nodes), a few of them per scene (a
//! crowd of up to 40 in one scene in 20), and up to 8 moving balls or rays aimed at them.
//!
//! - World transforms equal the reference's walk to the root bit for bit; world balls and
//!   capsules equal the reference's `f64` images, with radii between the exact cover (radius
//!   times the largest singular value) and `2.5e-5` above it; the bounding box and ball contain
//!   every world volume.
//! - The hits of `SkeletonQuery` equal the reference's every-projectile-against-every-node pairs
//!   exactly as sets, apart from pairs within `3e-5` (relative to the coordinates' size) of
//!   touching, the band where `f32` rounding and the radius's rounding up decide, which may fall
//!   either way; those are counted and must stay below 1 in 500 hits (about 1 in 1,000 to
//!   1,500 here). Ray hits also agree on the entry parameter.
//! - Bad input gets the documented answers: construction errors, non-finite transforms and
//!   projectiles, empty skeletons.

use std::collections::{BTreeMap, BTreeSet};

use glam::{Affine2, Affine3A, Mat2, Mat3, Quat, Vec2, Vec3};
use kollide::bounds::{Circle, Sphere};
use kollide::broad::BroadBounds;
use kollide::math::{Ray2, Ray3};
use kollide::skeleton::{
    D2, D3, MovingBall, MovingBall2, MovingBall3, NodeVolume, RayProjectile, RayProjectile2, Skeleton,
    Skeleton2, Skeleton3, SkeletonError, SkeletonHit, SkeletonNode, SkeletonNode2, SkeletonNode3,
    SkeletonQuery, SkeletonQuery2, SkeletonQuery3, SkeletonRayHit, SkeletonSpace,
};
use kollide_testkit::cases;
use kollide_testkit::random::{self, TestRng};
use kollide_testkit::reference_skeleton::{
    RefPair, RefSkeleton, RefSpace, RefVolume, moving_ball_pairs, ray_pairs, spectral_norm, world_transform,
};
use rand::Rng;

/// Half the side of the square (cube) the skeletons' roots are placed in.
const FIELD: f32 = 4.0;
/// Pairs whose reference gap is within this of zero, relative to the pair's scale, may be
/// reported either way.
const BAND: f64 = 3e-5;

/// Random inputs per dimension.
trait Gen: RefSpace {
    /// A local map: rigid, rigid with a uniform scale, or with a non-uniform scale and shear,
    /// translated by up to `reach`.
    fn transform(rng: &mut TestRng, reach: f32) -> Self::Transform;
    /// A point with coordinates in `[-half, half)`.
    fn point(rng: &mut TestRng, half: f32) -> Self::Vector;
    fn ray(origin: Self::Vector, dir: Self::Vector) -> Self::Ray;
    /// A bounding ball's centre (as 3 coordinates) and radius.
    fn ball_parts(ball: &Self::Ball) -> (Vec<f64>, f64);
    /// `(x, y, ..)` of a vector, in `f64`.
    fn coords(v: Self::Vector) -> Vec<f64> {
        let w = Self::wide(v);
        vec![w.x, w.y, w.z]
    }
}

/// 0: rigid, 1: uniform scale, 2: non-uniform scale and shear.
fn map_kind(rng: &mut TestRng) -> u32 {
    match rng.random_range(0..10) {
        0..6 => 0,
        6..8 => 1,
        _ => 2,
    }
}

impl Gen for D2 {
    fn transform(rng: &mut TestRng, reach: f32) -> Affine2 {
        let rotation = Mat2::from_angle(rng.random_range(-3.2..3.2));
        let linear = match map_kind(rng) {
            0 => rotation,
            1 => rotation * rng.random_range(0.5..2.0),
            _ => {
                let shear = Mat2::from_cols(Vec2::X, Vec2::new(rng.random_range(-0.5..0.5), 1.0));
                let scale = Vec2::new(rng.random_range(0.3..2.5), rng.random_range(0.3..2.5));
                rotation * shear * Mat2::from_diagonal(scale)
            }
        };
        Affine2::from_mat2_translation(linear, random::point2(rng, reach))
    }

    fn point(rng: &mut TestRng, half: f32) -> Vec2 {
        random::point2(rng, half)
    }

    fn ray(origin: Vec2, dir: Vec2) -> Ray2 {
        Ray2::new(origin, dir)
    }

    fn ball_parts(ball: &Circle) -> (Vec<f64>, f64) {
        (Self::coords(ball.center), f64::from(ball.radius))
    }
}

impl Gen for D3 {
    fn transform(rng: &mut TestRng, reach: f32) -> Affine3A {
        let rotation = Mat3::from_quat(random::rotation3(rng));
        let linear = match map_kind(rng) {
            0 => rotation,
            1 => rotation * rng.random_range(0.5..2.0),
            _ => random::affine3(rng, 1.0).matrix3.into(),
        };
        Affine3A::from_mat3_translation(linear, random::point3(rng, reach))
    }

    fn point(rng: &mut TestRng, half: f32) -> Vec3 {
        random::point3(rng, half)
    }

    fn ray(origin: Vec3, dir: Vec3) -> Ray3 {
        Ray3::new(origin, dir)
    }

    fn ball_parts(ball: &Sphere) -> (Vec<f64>, f64) {
        (Self::coords(ball.center), f64::from(ball.radius))
    }
}

/// Up to 12 nodes, each hanging from a random earlier node (one in eight a further root),
/// carrying a ball, a capsule or nothing.
fn random_nodes<D: Gen>(rng: &mut TestRng) -> Vec<SkeletonNode<D>> {
    let n = rng.random_range(1..=12);
    (0..n)
        .map(|i| {
            let parent = (i > 0 && rng.random_range(0..8) != 0).then(|| rng.random_range(0..i) as u32);
            let volume = match rng.random_range(0..5) {
                0 => NodeVolume::None,
                1 | 2 => NodeVolume::Ball { radius: rng.random_range(0.0..0.6) },
                _ => NodeVolume::Capsule {
                    half_height: rng.random_range(0.0..0.8),
                    radius: rng.random_range(0.0..0.4),
                },
            };
            SkeletonNode { parent, local: D::transform(rng, 1.2), volume }
        })
        .collect()
}

/// A scene: skeletons (their nodes, with the locals of the frame, and root maps), built and
/// updated.
struct Scene<D: SkeletonSpace> {
    nodes: Vec<Vec<SkeletonNode<D>>>,
    roots: Vec<D::Transform>,
    skeletons: Vec<Skeleton<D>>,
}

impl<D: Gen> Scene<D> {
    /// Up to 5 skeletons (one scene in 20 a crowd of 10 to 40), built with one set of locals,
    /// then given new ones (as an animation would) and updated.
    fn random(rng: &mut TestRng) -> Self {
        let count =
            if rng.random_range(0..20) == 0 { rng.random_range(10..=40) } else { rng.random_range(1..=5) };
        let mut scene = Scene { nodes: Vec::new(), roots: Vec::new(), skeletons: Vec::new() };
        for _ in 0..count {
            let mut nodes = random_nodes::<D>(rng);
            let mut skeleton = Skeleton::new(&nodes).expect("valid nodes");
            for (i, node) in nodes.iter_mut().enumerate() {
                node.local = D::transform(rng, 1.2);
                skeleton.set_local(i as u32, node.local).expect("in range");
            }
            let root = D::transform(rng, FIELD);
            assert_eq!(skeleton.update(&root), 0);
            scene.nodes.push(nodes);
            scene.roots.push(root);
            scene.skeletons.push(skeleton);
        }
        scene
    }

    fn reference(&self) -> Vec<RefSkeleton<'_, D>> {
        self.nodes.iter().zip(&self.roots).map(|(n, r)| (n.as_slice(), *r)).collect()
    }

    /// A point near a random node of a random skeleton (or anywhere, one time in four).
    fn target(&self, rng: &mut TestRng) -> D::Vector {
        let s = rng.random_range(0..self.skeletons.len());
        let world = self.skeletons[s].world_transforms();
        if rng.random_range(0..4) == 0 || world.is_empty() {
            return D::point(rng, FIELD + 2.0);
        }
        D::origin(&world[rng.random_range(0..world.len())]) + D::point(rng, 0.8)
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// World volumes and bounds of random skeletons against the reference.
fn check_world_volumes<D: Gen>(seed: u64) {
    let mut rng = random::rng(seed);
    let (mut balls, mut capsules, mut scaled) = (0, 0, 0);
    for case in 0..cases(10_000) {
        let scene = Scene::<D>::random(&mut rng);
        for ((nodes, root), skeleton) in scene.nodes.iter().zip(&scene.roots).zip(&scene.skeletons) {
            let world = skeleton.world_transforms();
            assert_eq!(world.len(), nodes.len());
            for (i, w) in world.iter().enumerate() {
                assert_eq!(*w, world_transform(nodes, root, i), "case {case}: node {i}'s world transform");
            }
            let expected: Vec<(u32, RefVolume)> = nodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| {
                    kollide_testkit::reference_skeleton::world_volume::<D>(n.volume, &world[i])
                        .map(|v| (i as u32, v))
                })
                .collect();
            let mut ours: Vec<(u32, Vec<f64>, Vec<f64>, f64)> = Vec::new();
            ours.extend(
                skeleton
                    .balls()
                    .iter()
                    .map(|b| (b.node, D::coords(b.center), D::coords(b.center), f64::from(b.radius))),
            );
            ours.extend(
                skeleton
                    .capsules()
                    .iter()
                    .map(|c| (c.node, D::coords(c.a), D::coords(c.b), f64::from(c.radius))),
            );
            ours.sort_by_key(|v| v.0);
            assert_eq!(ours.len(), expected.len(), "case {case}: volume count");
            let (bounds, ball) = (skeleton.bounds(), skeleton.bounding_ball());
            let (ball_center, ball_radius) = D::ball_parts(&ball);
            for ((node, a, b, radius), (ref_node, volume)) in ours.iter().zip(&expected) {
                assert_eq!(node, ref_node, "case {case}");
                let (ra, rb, rr) = volume.core();
                let (ra, rb) = ([ra.x, ra.y, ra.z], [rb.x, rb.y, rb.z]);
                for k in 0..3 {
                    assert!(
                        close(a[k], ra[k], 1e-6) && close(b[k], rb[k], 1e-6),
                        "case {case}: node {node} ends"
                    );
                }
                assert!(
                    *radius >= rr * (1.0 - 1e-9) && *radius <= rr * (1.0 + 2.5e-5) + 1e-30,
                    "case {case}: node {node} radius {radius}, exact cover {rr}"
                );
                match volume {
                    RefVolume::Ball { .. } => balls += 1,
                    RefVolume::Capsule { .. } => capsules += 1,
                }
                scaled += usize::from((rr - f64::from(nodes[*node as usize].volume_radius())).abs() > 1e-3);
                // The bounds contain the volume, in exact arithmetic on the stored values.
                for end in [a, b] {
                    for (k, x) in end.iter().enumerate().take(<D::Aabb as BroadBounds>::DIM) {
                        assert!(f64::from(bounds.lo(k)) <= x - radius, "case {case}: box");
                        assert!(f64::from(bounds.hi(k)) >= x + radius, "case {case}: box");
                    }
                    let reach: f64 =
                        end.iter().zip(&ball_center).map(|(x, c)| (x - c).powi(2)).sum::<f64>().sqrt();
                    assert!(reach + radius <= ball_radius, "case {case}: bounding ball");
                }
            }
            if expected.is_empty() {
                assert!(ball_radius < 0.0 && bounds.is_empty_box(), "case {case}: no volume, empty bounds");
            }
        }
    }
    assert!(
        balls > 10_000 && capsules > 10_000 && scaled > 5_000,
        "{balls} balls, {capsules} capsules, {scaled} scaled"
    );
}

/// A node volume's radius (0 without one).
trait VolumeRadius {
    fn volume_radius(&self) -> f32;
}

impl<D: SkeletonSpace> VolumeRadius for SkeletonNode<D> {
    fn volume_radius(&self) -> f32 {
        match self.volume {
            NodeVolume::None => 0.0,
            NodeVolume::Ball { radius } | NodeVolume::Capsule { radius, .. } => radius,
        }
    }
}

/// Whether a box is empty, through the generic interface.
trait EmptyBox {
    fn is_empty_box(&self) -> bool;
}

impl<B: BroadBounds> EmptyBox for B {
    fn is_empty_box(&self) -> bool {
        (0..B::DIM).any(|k| self.lo(k) > self.hi(k))
    }
}

#[test]
fn world_volumes_equal_the_reference_2d() {
    check_world_volumes::<D2>(0x736b_656c_0002);
}

#[test]
fn world_volumes_equal_the_reference_3d() {
    check_world_volumes::<D3>(0x736b_656c_0003);
}

/// Up to 8 moving balls, most aimed at the scene's nodes, with displacements from 0 to 3.
fn random_moving_balls<D: Gen>(rng: &mut TestRng, scene: &Scene<D>) -> Vec<MovingBall<D>> {
    (0..rng.random_range(1..=8))
        .map(|_| {
            let target = scene.target(rng);
            let displacement = if rng.random_range(0..6) == 0 { D::splat(0.0) } else { D::point(rng, 1.5) };
            let center = target - displacement * rng.random_range(0.0..1.5);
            MovingBall { center, radius: rng.random_range(0.0..0.3), displacement }
        })
        .collect()
}

/// Compares a query's pairs with the reference's: every pair beyond the band on the touching side
/// is found, nothing beyond it on the other side is; returns the number of pairs within the band.
fn compare_sets(case: usize, ours: &BTreeSet<(u32, u32, u32)>, reference: &[RefPair]) -> usize {
    let by_key: BTreeMap<(u32, u32, u32), &RefPair> =
        reference.iter().map(|p| ((p.projectile, p.skeleton, p.node), p)).collect();
    let mut grazing = 0;
    for (key, pair) in &by_key {
        if pair.gap < -BAND * pair.scale {
            assert!(ours.contains(key), "case {case}: missed {pair:?}");
        } else if pair.gap <= BAND * pair.scale {
            grazing += 1;
        }
    }
    for key in ours {
        assert!(by_key.contains_key(key), "case {case}: reported {key:?}, which the reference has apart");
    }
    grazing
}

fn check_moving_balls<D: Gen>(seed: u64) {
    let mut rng = random::rng(seed);
    let mut query = SkeletonQuery::<D>::new();
    let mut hits: Vec<SkeletonHit> = Vec::new();
    let (mut total, mut grazing, mut cases_hit) = (0, 0, 0);
    let n = cases(10_000);
    for case in 0..n {
        let scene = Scene::<D>::random(&mut rng);
        let projectiles = random_moving_balls(&mut rng, &scene);
        query.moving_balls(&scene.skeletons, &projectiles, &mut hits);
        let keys: Vec<_> = hits.iter().map(|h| (h.projectile, h.skeleton, h.node)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "case {case}: hits not in order: {keys:?}");
        let ours: BTreeSet<_> = keys.into_iter().collect();
        grazing += compare_sets(case, &ours, &moving_ball_pairs(&scene.reference(), &projectiles, BAND));
        total += ours.len();
        cases_hit += usize::from(!ours.is_empty());
    }
    assert!(cases_hit > n / 2 && cases_hit < n, "{cases_hit} of {n} cases with hits");
    eprintln!("{grazing} grazing pairs among {total} hits");
    assert!(grazing * 500 <= total, "{grazing} grazing pairs among {total} hits");
}

#[test]
fn moving_ball_hits_equal_the_reference_2d() {
    check_moving_balls::<D2>(0x6d6f_7665_0002);
}

#[test]
fn moving_ball_hits_equal_the_reference_3d() {
    check_moving_balls::<D3>(0x6d6f_7665_0003);
}

fn check_rays<D: Gen>(seed: u64) {
    let mut rng = random::rng(seed);
    let mut query = SkeletonQuery::<D>::new();
    let mut hits: Vec<SkeletonRayHit> = Vec::new();
    let (mut total, mut grazing, mut cases_hit) = (0, 0, 0);
    let n = cases(10_000);
    for case in 0..n {
        let scene = Scene::<D>::random(&mut rng);
        let projectiles: Vec<RayProjectile<D>> = (0..rng.random_range(1..=8))
            .map(|_| {
                let origin = D::point(&mut rng, FIELD + 2.0);
                let dir = (scene.target(&mut rng) - origin) * rng.random_range(0.2..2.0);
                let max_t = match rng.random_range(0..4) {
                    0 => f32::INFINITY,
                    _ => rng.random_range(0.0..2.0),
                };
                RayProjectile { ray: D::ray(origin, dir), max_t }
            })
            .collect();
        query.rays(&scene.skeletons, &projectiles, &mut hits);
        let keys: Vec<_> = hits.iter().map(|h| (h.projectile, h.skeleton, h.node)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "case {case}: hits not in order: {keys:?}");
        let reference = ray_pairs(&scene.reference(), &projectiles, BAND);
        let ours: BTreeSet<_> = keys.into_iter().collect();
        grazing += compare_sets(case, &ours, &reference);
        for hit in &hits {
            let pair = reference
                .iter()
                .find(|p| (p.projectile, p.skeleton, p.node) == (hit.projectile, hit.skeleton, hit.node))
                .expect("compared above");
            if let Some(t) = pair.t.filter(|_| pair.gap < -BAND * pair.scale) {
                let (_, dir) = D::ray_parts(&projectiles[hit.projectile as usize].ray);
                let len = f64::from(D::dot(dir, dir)).sqrt();
                assert!(
                    (f64::from(hit.t) - t).abs() * len <= 5e-3 * pair.scale,
                    "case {case}: {hit:?} enters at {t} by the reference"
                );
            }
        }
        total += ours.len();
        cases_hit += usize::from(!ours.is_empty());
    }
    assert!(cases_hit > n / 2 && cases_hit < n, "{cases_hit} of {n} cases with hits");
    eprintln!("{grazing} grazing pairs among {total} hits");
    assert!(grazing * 500 <= total, "{grazing} grazing pairs among {total} hits");
}

#[test]
fn ray_hits_equal_the_reference_2d() {
    check_rays::<D2>(0x7261_7973_0002);
}

#[test]
fn ray_hits_equal_the_reference_3d() {
    check_rays::<D3>(0x7261_7973_0003);
}

// -----------------------------------------------------------------------------------------------
// Fixed cases: the scale rule, order, bad input.
// -----------------------------------------------------------------------------------------------

fn node2(parent: Option<u32>, local: Affine2, volume: NodeVolume) -> SkeletonNode2 {
    SkeletonNode2 { parent, local, volume }
}

#[test]
fn a_ball_under_a_non_uniform_scale_gets_the_radius_of_the_largest_stretch() {
    // Scale 3 along x, 0.5 along y, then a turn: the unit circle becomes an ellipse of semi-axes
    // 3 and 0.5; its cover is the circle of radius 3 (times the node's radius).
    let map = Affine2::from_angle(0.4) * Affine2::from_scale(Vec2::new(3.0, 0.5));
    let mut skeleton = Skeleton2::new(&[
        node2(None, map, NodeVolume::Ball { radius: 2.0 }),
        node2(
            Some(0),
            Affine2::from_translation(Vec2::new(1.0, 0.0)),
            NodeVolume::Capsule { half_height: 1.0, radius: 0.5 },
        ),
    ])
    .unwrap();
    skeleton.update(&Affine2::from_translation(Vec2::new(10.0, 0.0)));
    let ball = skeleton.balls()[0];
    assert!(ball.radius >= 6.0 && ball.radius <= 6.0 * (1.0 + 1e-6), "{}", ball.radius);
    assert_eq!(ball.center, Vec2::new(10.0, 0.0));
    // Every point of the mapped circle is inside, and the far ends of the ellipse touch it.
    let world = skeleton.world_transforms()[0];
    let mut farthest = 0.0f32;
    for k in 0..3600 {
        let p = world.transform_point2(Vec2::from_angle(k as f32 * 0.1f32.to_radians()) * 2.0);
        let d = p.distance(ball.center);
        assert!(d <= ball.radius * (1.0 + 1e-6));
        farthest = farthest.max(d);
    }
    assert!(farthest >= ball.radius * (1.0 - 1e-5));
    // The capsule's ends are the images of (1, ±1) in the ball node's frame, its radius 0.5 · 3.
    let capsule = skeleton.capsules()[0];
    let at = |y: f32| world.transform_point2(Vec2::new(1.0, y));
    assert!(capsule.a.distance(at(-1.0)) < 1e-5 && capsule.b.distance(at(1.0)) < 1e-5);
    assert!(capsule.radius >= 1.5 && capsule.radius <= 1.5 * (1.0 + 1e-6));
    // A uniform scale is exact: the radius is the scale times the radius.
    let uniform =
        Affine3A::from_scale_rotation_translation(Vec3::splat(2.5), Quat::from_rotation_y(0.3), Vec3::ZERO);
    let sphere = Skeleton3::new(&[SkeletonNode3 {
        parent: None,
        local: uniform,
        volume: NodeVolume::Ball { radius: 1.0 },
    }])
    .unwrap()
    .balls()[0];
    assert!(sphere.radius >= 2.5 && sphere.radius <= 2.5 * (1.0 + 2e-5), "{}", sphere.radius);
    let columns = [
        uniform.matrix3.x_axis.as_dvec3(),
        uniform.matrix3.y_axis.as_dvec3(),
        uniform.matrix3.z_axis.as_dvec3(),
    ];
    assert!((spectral_norm(&columns) - 2.5).abs() < 1e-6);
}

#[test]
fn construction_refuses_bad_parents_and_volumes() {
    let id = Affine2::IDENTITY;
    let ball = NodeVolume::Ball { radius: 1.0 };
    let cases = [
        (vec![node2(Some(0), id, ball)], SkeletonError::ParentNotBefore { node: 0, parent: 0 }),
        (
            vec![node2(None, id, ball), node2(Some(2), id, ball), node2(None, id, ball)],
            SkeletonError::ParentNotBefore { node: 1, parent: 2 },
        ),
        (
            vec![node2(None, id, ball), node2(Some(u32::MAX), id, ball)],
            SkeletonError::ParentNotBefore { node: 1, parent: u32::MAX },
        ),
        (
            vec![node2(None, id, NodeVolume::Ball { radius: f32::NAN })],
            SkeletonError::InvalidVolume { node: 0 },
        ),
        (
            vec![node2(None, id, ball), node2(Some(0), id, NodeVolume::Ball { radius: -0.5 })],
            SkeletonError::InvalidVolume { node: 1 },
        ),
        (
            vec![node2(None, id, NodeVolume::Ball { radius: f32::INFINITY })],
            SkeletonError::InvalidVolume { node: 0 },
        ),
        (
            vec![node2(None, id, NodeVolume::Capsule { half_height: f32::NAN, radius: 1.0 })],
            SkeletonError::InvalidVolume { node: 0 },
        ),
        (
            vec![node2(None, id, NodeVolume::Capsule { half_height: 1.0, radius: -1.0 })],
            SkeletonError::InvalidVolume { node: 0 },
        ),
        (
            vec![node2(None, id, NodeVolume::Capsule { half_height: f32::INFINITY, radius: 1.0 })],
            SkeletonError::InvalidVolume { node: 0 },
        ),
    ];
    for (nodes, error) in cases {
        assert_eq!(Skeleton2::new(&nodes).unwrap_err(), error, "{nodes:?}");
        assert!(!error.to_string().is_empty());
    }
    // Zero sizes are valid: a point and a segment.
    let zero = [
        node2(None, id, NodeVolume::Ball { radius: 0.0 }),
        node2(Some(0), id, NodeVolume::Capsule { half_height: 0.0, radius: 0.0 }),
    ];
    assert!(Skeleton2::new(&zero).is_ok());
}

#[test]
fn an_empty_skeleton_has_empty_bounds_and_is_never_hit() {
    let mut empty = Skeleton2::new(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty.update(&Affine2::from_translation(Vec2::ONE)), 0);
    assert!(empty.bounds().is_empty_box() && empty.bounding_ball().radius < 0.0);
    assert!(empty.balls().is_empty() && empty.capsules().is_empty() && empty.world_transforms().is_empty());
    assert_eq!(empty.parent(0), None);
    assert_eq!(empty.volume(0), None);
    assert_eq!(empty.set_local(0, Affine2::IDENTITY), Err(SkeletonError::NodeOutOfRange { node: 0 }));
    // Bare nodes only: no volume, empty bounds.
    let bare = Skeleton2::new(&[node2(None, Affine2::IDENTITY, NodeVolume::None)]).unwrap();
    assert!(bare.bounds().is_empty_box() && bare.bounding_ball().radius < 0.0);
    let mut query = SkeletonQuery2::new();
    let mut hits = vec![SkeletonHit { projectile: 9, skeleton: 9, node: 9 }];
    let everywhere = MovingBall2 { center: Vec2::ZERO, radius: 1e6, displacement: Vec2::ZERO };
    query.moving_balls(&[empty, bare], &[everywhere], &mut hits);
    assert!(hits.is_empty(), "cleared, and nothing to hit");
}

/// A chain of three balls along x, one unit apart, placed at `at`.
fn chain(at: Vec2) -> Skeleton2 {
    let step = Affine2::from_translation(Vec2::X);
    let ball = NodeVolume::Ball { radius: 0.25 };
    let mut skeleton = Skeleton2::new(&[
        node2(None, Affine2::IDENTITY, ball),
        node2(Some(0), step, ball),
        node2(Some(1), step, ball),
    ])
    .unwrap();
    skeleton.update(&Affine2::from_translation(at));
    skeleton
}

#[test]
fn non_finite_transforms_drop_the_volumes_below_them() {
    let mut skeleton = chain(Vec2::ZERO);
    skeleton.set_local(1, Affine2::from_translation(Vec2::new(f32::NAN, 0.0))).unwrap();
    assert_eq!(skeleton.update(&Affine2::IDENTITY), 2, "node 1 and its child");
    let balls = skeleton.balls();
    assert!((balls[0].radius - 0.25).abs() < 1e-6);
    assert!(balls[1].radius.is_nan() && balls[1].center.is_nan() && balls[2].radius.is_nan());
    // The bounds cover the finite ball only.
    let bounds = skeleton.bounds();
    assert!(bounds.max.x < 0.3 && bounds.min.x > -0.3);
    // A sweep through the whole chain reports node 0 only.
    let mut query = SkeletonQuery2::new();
    let mut hits = Vec::new();
    let sweep = MovingBall2 { center: Vec2::new(-1.0, 0.0), radius: 0.1, displacement: Vec2::new(5.0, 0.0) };
    query.moving_balls(&[&skeleton], &[sweep], &mut hits);
    assert_eq!(hits, [SkeletonHit { projectile: 0, skeleton: 0, node: 0 }]);
    let mut ray_hits = Vec::new();
    let ray = RayProjectile2 { ray: Ray2::new(Vec2::new(-1.0, 0.0), Vec2::X), max_t: f32::INFINITY };
    query.rays(&[&skeleton], &[ray], &mut ray_hits);
    assert_eq!(ray_hits.len(), 1);
    assert_eq!(ray_hits[0].node, 0);
    assert!((ray_hits[0].t - 0.75).abs() < 1e-6);
    // An infinite scale makes the radius infinite: dropped too.
    skeleton.set_local(1, Affine2::from_scale(Vec2::new(f32::INFINITY, 1.0))).unwrap();
    assert_eq!(skeleton.update(&Affine2::IDENTITY), 2);
    // A NaN root drops everything; the skeleton is then never hit.
    skeleton.set_local(1, Affine2::from_translation(Vec2::X)).unwrap();
    assert_eq!(skeleton.update(&Affine2::from_translation(Vec2::NAN)), 3);
    assert!(skeleton.bounds().is_empty_box() && skeleton.bounding_ball().radius < 0.0);
    query.moving_balls(&[&skeleton], &[sweep], &mut hits);
    assert!(hits.is_empty());
    // Back to finite: everything returns.
    assert_eq!(skeleton.update(&Affine2::IDENTITY), 0);
    query.moving_balls(&[&skeleton], &[sweep], &mut hits);
    assert_eq!(hits.len(), 3);
    // Non-finite 3D maps too.
    let mut sphere = Skeleton3::new(&[SkeletonNode3 {
        parent: None,
        local: Affine3A::IDENTITY,
        volume: NodeVolume::Capsule { half_height: 1.0, radius: 1.0 },
    }])
    .unwrap();
    assert_eq!(sphere.update(&Affine3A::from_scale(Vec3::new(1.0, f32::NAN, 1.0))), 1);
    assert!(sphere.capsules()[0].radius.is_nan());
    assert_eq!(sphere.update(&Affine3A::IDENTITY), 0);
}

#[test]
fn bad_projectiles_hit_nothing() {
    let skeletons = [chain(Vec2::ZERO)];
    let mut query = SkeletonQuery2::new();
    let mut hits = Vec::new();
    let good = MovingBall2 { center: Vec2::new(0.0, -1.0), radius: 0.1, displacement: Vec2::new(0.0, 2.0) };
    let bad = [
        MovingBall2 { center: Vec2::new(f32::NAN, 0.0), ..good },
        MovingBall2 { radius: -0.1, ..good },
        MovingBall2 { radius: f32::NAN, ..good },
        MovingBall2 { radius: f32::INFINITY, ..good },
        MovingBall2 { displacement: Vec2::new(0.0, f32::INFINITY), ..good },
        MovingBall2 { center: Vec2::new(f32::NEG_INFINITY, 0.0), ..good },
    ];
    let mut all = bad.to_vec();
    all.push(good);
    query.moving_balls(&skeletons, &all, &mut hits);
    assert_eq!(hits, [SkeletonHit { projectile: bad.len() as u32, skeleton: 0, node: 0 }]);
    let ray = |origin: Vec2, dir: Vec2, max_t: f32| RayProjectile2 { ray: Ray2::new(origin, dir), max_t };
    let from = Vec2::new(0.0, -1.0);
    let rays = [
        ray(from, Vec2::ZERO, 1.0),
        ray(from, Vec2::Y, f32::NAN),
        ray(from, Vec2::Y, -1.0),
        ray(Vec2::new(f32::NAN, -1.0), Vec2::Y, 1.0),
        ray(from, Vec2::new(0.0, f32::INFINITY), 1.0),
        ray(from, Vec2::Y, 0.5),
        ray(from, Vec2::Y, f32::INFINITY),
        ray(Vec2::ZERO, Vec2::Y, 0.0),
    ];
    let mut ray_hits = Vec::new();
    query.rays(&skeletons, &rays, &mut ray_hits);
    let got: Vec<_> = ray_hits.iter().map(|h| (h.projectile, h.node, h.t)).collect();
    // The short ray stops before the ball (0.5 < 0.75); the long one enters at 0.75; a
    // zero-length ray (max_t = 0) from inside hits at 0.
    assert_eq!(got.len(), 2);
    assert!(got[0].0 == 6 && got[0].1 == 0 && (got[0].2 - 0.75).abs() < 1e-6);
    assert_eq!(got[1], (7, 0, 0.0));
}

#[test]
fn hits_are_ordered_by_projectile_then_skeleton_then_node_with_balls_and_capsules_mixed() {
    let ball = NodeVolume::Ball { radius: 0.3 };
    let capsule = NodeVolume::Capsule { half_height: 0.2, radius: 0.3 };
    let step = Affine2::from_translation(Vec2::X);
    // Nodes 0, 2 are capsules, 1, 3 balls: the hits interleave the two arrays.
    let nodes = [
        node2(None, Affine2::IDENTITY, capsule),
        node2(Some(0), step, ball),
        node2(Some(1), step, capsule),
        node2(Some(2), step, ball),
    ];
    let mut skeletons: Vec<Skeleton2> = (0..3).map(|_| Skeleton2::new(&nodes).unwrap()).collect();
    // Skeleton 2 left of skeleton 0, skeleton 1 far away: the sweep order differs from the index order.
    for (s, x) in skeletons.iter_mut().zip([5.0, 100.0, -5.0]) {
        s.update(&Affine2::from_translation(Vec2::new(x, 0.0)));
    }
    let across =
        MovingBall2 { center: Vec2::new(-10.0, 0.0), radius: 0.1, displacement: Vec2::new(20.0, 0.0) };
    let first_node = MovingBall2 { center: Vec2::new(5.0, 0.0), radius: 0.05, displacement: Vec2::ZERO };
    let mut query = SkeletonQuery2::new();
    let mut hits = Vec::new();
    query.moving_balls(&skeletons, &[first_node, across], &mut hits);
    let got: Vec<_> = hits.iter().map(|h| (h.projectile, h.skeleton, h.node)).collect();
    let mut expected = vec![(0, 0, 0)];
    expected.extend((0..4).map(|n| (1, 0, n)));
    expected.extend((0..4).map(|n| (1, 2, n)));
    assert_eq!(got, expected);
}

#[test]
fn three_d_queries_use_spheres_and_capsules() {
    // A sphere at the origin and a capsule along y at x = 2, lifted to z = 1.
    let mut skeleton = Skeleton3::new(&[
        SkeletonNode3 { parent: None, local: Affine3A::IDENTITY, volume: NodeVolume::Ball { radius: 0.5 } },
        SkeletonNode3 {
            parent: Some(0),
            local: Affine3A::from_translation(Vec3::new(2.0, 0.0, 0.0)),
            volume: NodeVolume::Capsule { half_height: 1.0, radius: 0.25 },
        },
    ])
    .unwrap();
    skeleton.update(&Affine3A::from_translation(Vec3::new(0.0, 0.0, 1.0)));
    assert_eq!(skeleton.capsules()[0].a, Vec3::new(2.0, -1.0, 1.0));
    let mut query = SkeletonQuery3::new();
    let mut hits = Vec::new();
    let down = MovingBall3 { center: Vec3::new(2.0, 1.5, 1.0), radius: 0.25, displacement: Vec3::ZERO };
    let past = MovingBall3 {
        center: Vec3::new(-3.0, 0.0, 1.8),
        radius: 0.25,
        displacement: Vec3::new(6.0, 0.0, 0.0),
    };
    query.moving_balls(&[&skeleton], &[down, past], &mut hits);
    let got: Vec<_> = hits.iter().map(|h| (h.projectile, h.node)).collect();
    // `down` touches the capsule's top exactly (1 + 0.25 + 0.25 = 1.5); `past` runs 0.8 above
    // the centres, beyond both (0.5 + 0.25 < 0.8, 0.25 + 0.25 < 0.8).
    assert_eq!(got, [(0, 1)]);
    let ray = RayProjectile { ray: Ray3::new(Vec3::new(-3.0, 0.0, 1.0), Vec3::X), max_t: 10.0 };
    let mut ray_hits = Vec::new();
    query.rays(&[&skeleton], &[ray], &mut ray_hits);
    let got: Vec<_> = ray_hits.iter().map(|h| h.node).collect();
    assert_eq!(got, [0, 1]);
    // The radii are rounded up by at most 2e-5 of themselves.
    assert!((ray_hits[0].t - 2.5).abs() < 2e-5 && (ray_hits[1].t - 4.75).abs() < 2e-5);
}

#[test]
fn generic_over_the_space_trait() {
    // The same skeleton code through the marker types (what `Skeleton2` aliases).
    fn count<D: SkeletonSpace>(s: &Skeleton<D>) -> usize {
        s.balls().len() + s.capsules().len()
    }
    assert_eq!(count::<D2>(&chain(Vec2::ZERO)), 3);
    let moved: Vec<MovingBall<D2>> = Vec::new();
    let mut hits = Vec::new();
    SkeletonQuery::<D2>::default().moving_balls::<Skeleton2>(&[], &moved, &mut hits);
    assert!(hits.is_empty());
}
