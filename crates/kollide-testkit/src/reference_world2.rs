//! The brute-force world of 2D shapes ([`ModelWorld2`]: the generic [`ModelWorld`] over `Dim2`,
//! through the 2D query layer's own entry points) and the random 2D scenes of the `world2`
//! suite: convex shapes of every kind, compounds, polylines (open, closed, one-sided) and
//! triangle meshes, under rigid, scaled, sheared and reflected placements.

use std::sync::{Arc, OnceLock};

use glam::{Affine2, Mat2, Vec2};
use kollide::math::Ray2;
use kollide::narrow::ShapeCastHit2;
use kollide::primitive::d2::RayHit2;
use kollide::query::{self, Compound2, Polyline2, QueryError, Shape2, TriMesh2};
use kollide::shape::{
    Ball2, Capsule2, ConvexPolygon2, ConvexShape2, Cuboid2, Segment2, ShapeKind2, Triangle2,
};
use kollide::world::{ColliderDesc2, Dim2};
use rand::Rng;

use crate::random::{self, TestRng};
use crate::reference_world::{ModelCollider, ModelDim, ModelPairRule, ModelWorld, SceneRoles, random_filter};

/// The brute-force world of 2D shapes.
pub type ModelWorld2 = ModelWorld<Dim2>;
/// A collider of [`ModelWorld2`].
pub type ModelCollider2 = ModelCollider<Dim2>;
/// A pair rule of [`ModelWorld2`].
pub type ModelPairRule2 = ModelPairRule<Dim2>;

/// The box `(min, max)` of a convex shape in its own frame, from its defining points and radius.
fn convex_box(shape: &ConvexShape2) -> (Vec2, Vec2) {
    let of_points = |points: &[Vec2], r: f32| {
        let lo = points.iter().fold(Vec2::INFINITY, |m, &p| m.min(p));
        let hi = points.iter().fold(Vec2::NEG_INFINITY, |m, &p| m.max(p));
        (lo - Vec2::splat(r), hi + Vec2::splat(r))
    };
    match shape {
        ConvexShape2::Ball(b) => of_points(&[Vec2::ZERO], b.radius),
        ConvexShape2::Capsule(c) => {
            of_points(&[Vec2::new(0.0, -c.half_height), Vec2::new(0.0, c.half_height)], c.radius)
        }
        ConvexShape2::Cuboid(c) => of_points(&[-c.half_extents, c.half_extents], 0.0),
        ConvexShape2::Segment(s) => of_points(&[s.a, s.b], 0.0),
        ConvexShape2::Triangle(t) => of_points(&[t.a, t.b, t.c], 0.0),
        ConvexShape2::Polygon(p) => of_points(p.vertices(), p.radius()),
    }
}

/// The box `(min, max)` of a 2D shape in its own frame, from its defining points (not the
/// library's bounds): a compound child's box is the box of its local box's corners mapped by the
/// child's placement.
pub fn reference_box2(shape: &Shape2) -> (Vec2, Vec2) {
    let of_points = |points: &mut dyn Iterator<Item = Vec2>| {
        points.fold((Vec2::INFINITY, Vec2::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)))
    };
    match shape {
        Shape2::Convex(s) => convex_box(s),
        Shape2::Compound(c) => of_points(&mut c.children().iter().flat_map(|(child, m)| {
            let (lo, hi) = convex_box(child);
            [lo, Vec2::new(hi.x, lo.y), hi, Vec2::new(lo.x, hi.y)].map(|p| m.transform_point2(p))
        })),
        Shape2::Polyline(p) => of_points(&mut p.points().iter().copied()),
        Shape2::Mesh(m) => of_points(&mut m.vertices().iter().copied()),
    }
}

impl ModelDim for Dim2 {
    fn local_ball(shape: &Shape2) -> (Vec2, f32) {
        let (lo, hi) = reference_box2(shape);
        let radius = if (hi - lo).is_finite() { (hi - lo).length() / 2.0 } else { f32::INFINITY };
        ((lo + hi) / 2.0, radius)
    }

    fn world_ball(local: (Vec2, f32), placement: &Affine2) -> (Vec2, f32) {
        let m = placement.matrix2;
        let norm = (m.x_axis.length_squared() + m.y_axis.length_squared()).sqrt();
        let center = placement.transform_point2(local.0);
        let radius = local.1 * norm;
        (center, radius + 1e-5 * (1.0 + radius + center.abs().max_element()))
    }

    fn balls_apart(a: (Vec2, f32), b: (Vec2, f32)) -> bool {
        a.0.distance(b.0) > a.1 + b.1
    }

    fn ref_intersects(a: &Shape2, pa: &Affine2, b: &Shape2, pb: &Affine2) -> Result<bool, QueryError> {
        query::intersects2(a, pa, b, pb)
    }

    fn ref_cast_ray(
        shape: &Shape2,
        to_world: &Affine2,
        ray: &Ray2,
        max_t: f32,
    ) -> Result<Option<RayHit2>, QueryError> {
        query::cast_ray2(shape, to_world, ray, max_t)
    }

    fn ref_cast_shape(
        a: &Shape2,
        pa: &Affine2,
        b: &Shape2,
        pb: &Affine2,
        velocity: Vec2,
        max_t: f32,
    ) -> Result<Option<ShapeCastHit2>, QueryError> {
        query::cast_shape2(a, pa, b, pb, velocity, max_t)
    }

    fn ref_contains_point(shape: &Shape2, to_world: &Affine2, p: Vec2) -> Result<bool, QueryError> {
        query::contains_point2(shape, to_world, p)
    }

    fn ref_distance(a: &Shape2, pa: &Affine2, b: &Shape2, pb: &Affine2) -> Result<f32, QueryError> {
        query::distance2(a, pa, b, pb)
    }
}

// ---------------------------------------------------------------------------------------------
// Random 2D scenes

/// A random convex shape of `kind`, between 0.2 and about 1.2 across: sizes, a segment at least
/// 0.2 long, a triangle of area at least 0.02, hulls of 5 to 12 points (rounded one time in
/// three).
pub fn random_convex2_of(rng: &mut TestRng, kind: ShapeKind2) -> ConvexShape2 {
    match kind {
        ShapeKind2::Ball => ConvexShape2::Ball(Ball2::new(rng.random_range(0.1..0.6))),
        ShapeKind2::Capsule => {
            ConvexShape2::Capsule(Capsule2::new(rng.random_range(0.05..0.5), rng.random_range(0.1..0.35)))
        }
        ShapeKind2::Cuboid => ConvexShape2::Cuboid(Cuboid2::new(Vec2::new(
            rng.random_range(0.1..0.6),
            rng.random_range(0.1..0.6),
        ))),
        ShapeKind2::Segment => loop {
            let (a, b) = (random::point2(rng, 0.6), random::point2(rng, 0.6));
            if a.distance(b) >= 0.2 {
                break ConvexShape2::Segment(Segment2::new(a, b));
            }
        },
        ShapeKind2::Triangle => loop {
            let [a, b, c] = [(); 3].map(|_| random::point2(rng, 0.6));
            if (b - a).perp_dot(c - a).abs() >= 0.04 {
                break ConvexShape2::Triangle(Triangle2::new(a, b, c));
            }
        },
        ShapeKind2::Polygon => {
            let n = rng.random_range(5..=12);
            let size = rng.random_range(0.25..0.6);
            let points: Vec<Vec2> = (0..n)
                .map(|_| {
                    Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU))
                        * size
                        * rng.random_range(0.6..1.0)
                })
                .collect();
            let radius = if rng.random_bool(1.0 / 3.0) { rng.random_range(0.03..0.15) } else { 0.0 };
            match ConvexPolygon2::rounded(&points, radius) {
                Ok(polygon) => ConvexShape2::Polygon(polygon),
                // Points too close to a line: a box instead.
                Err(_) => ConvexShape2::Cuboid(Cuboid2::new(Vec2::splat(size))),
            }
        }
    }
}

/// A random convex shape of any kind ([`random_convex2_of`]).
pub fn random_convex2(rng: &mut TestRng) -> ConvexShape2 {
    let kind = ShapeKind2::ALL[rng.random_range(0..ShapeKind2::ALL.len())];
    random_convex2_of(rng, kind)
}

/// A random linear map: rigid, uniformly scaled (`[0.5, 1.2]`), or scaled per axis (`[0.4, 1.4]`)
/// with shear up to 0.3 and a reflection one time in five.
pub fn random_linear2(rng: &mut TestRng) -> Mat2 {
    let rotation = Mat2::from_angle(rng.random_range(0.0..std::f32::consts::TAU));
    match rng.random_range(0..3) {
        0 => rotation,
        1 => rotation * rng.random_range(0.5f32..1.2),
        _ => {
            let scale = Vec2::new(rng.random_range(0.4..1.4), rng.random_range(0.4..1.4));
            let shear = Mat2::from_cols(Vec2::X, Vec2::new(rng.random_range(-0.3..0.3), 1.0));
            let reflect =
                if rng.random_bool(0.2) { Mat2::from_diagonal(Vec2::new(-1.0, 1.0)) } else { Mat2::IDENTITY };
            rotation * shear * Mat2::from_diagonal(scale) * reflect
        }
    }
}

/// A compound child's placement: a random linear map, within 0.6 of the compound's origin.
fn child_placement2(rng: &mut TestRng) -> Affine2 {
    Affine2::from_mat2_translation(random_linear2(rng), random::point2(rng, 0.6))
}

/// A compound of two or three random convex shapes.
pub fn random_compound2(rng: &mut TestRng) -> Compound2 {
    let n = rng.random_range(2..=3);
    let children = (0..n).map(|_| (random_convex2(rng), child_placement2(rng))).collect();
    Compound2::new(children).expect("valid children")
}

/// A random chain about 1.6 across: open (a zigzag of 3 to 6 points, or 4 collinear points),
/// or closed (a star-shaped loop of 4 to 8 points, counter-clockwise, so that a one-sided loop
/// collides on its outside); one-sided half of the time.
pub fn random_polyline2(rng: &mut TestRng) -> Polyline2 {
    let one_sided = rng.random_bool(0.5);
    match rng.random_range(0..3) {
        0 => {
            let n = rng.random_range(3..=6);
            let points: Vec<Vec2> = (0..n)
                .map(|i| Vec2::new(-0.8 + 1.6 * i as f32 / (n - 1) as f32, rng.random_range(-0.4..0.4)))
                .collect();
            Polyline2::new(&points, false, one_sided).expect("distinct points")
        }
        1 => {
            let points: Vec<Vec2> = (0..4).map(|i| Vec2::new(0.8 - 0.4 * i as f32, 0.0)).collect();
            Polyline2::new(&points, false, one_sided).expect("distinct points")
        }
        _ => {
            let n = rng.random_range(4..=8);
            let points: Vec<Vec2> = (0..n)
                .map(|i| {
                    let angle = std::f32::consts::TAU * (i as f32 + rng.random_range(0.0..0.5)) / n as f32;
                    Vec2::from_angle(angle) * rng.random_range(0.3..0.8)
                })
                .collect();
            Polyline2::new(&points, true, one_sided).expect("distinct points")
        }
    }
}

/// The shared triangle meshes of the 2D scenes, built once: a concave star (a fan of 10
/// triangles), a ring (16 triangles around a hole), an L (4 triangles, two pairs sharing an
/// edge) and a soup (5 overlapping triangles, one of them degenerate), each about 1.6 across.
pub fn scene_meshes2() -> &'static [(Arc<TriMesh2>, &'static str)] {
    static MESHES: OnceLock<Vec<(Arc<TriMesh2>, &'static str)>> = OnceLock::new();
    MESHES.get_or_init(|| {
        let build = |vertices: Vec<Vec2>, triangles: Vec<[u32; 3]>| {
            Arc::new(TriMesh2::new(vertices, triangles).expect("a valid generated mesh"))
        };
        let tau = std::f32::consts::TAU;
        // The star: the centre and 10 points alternately at radius 0.8 and 0.35.
        let mut star = vec![Vec2::ZERO];
        star.extend(
            (0..10).map(|i| Vec2::from_angle(tau * i as f32 / 10.0) * if i % 2 == 0 { 0.8 } else { 0.35 }),
        );
        let star_tris = (0..10u32).map(|i| [0, 1 + i, 1 + (i + 1) % 10]).collect();
        // The ring: 8 outer points at 0.8 and 8 inner at 0.45.
        let ring: Vec<Vec2> = (0..16)
            .map(|i| Vec2::from_angle(tau * (i % 8) as f32 / 8.0) * if i < 8 { 0.8 } else { 0.45 })
            .collect();
        let ring_tris = (0..8u32).flat_map(|i| {
            let j = (i + 1) % 8;
            [[i, j, 8 + j], [i, 8 + j, 8 + i]]
        });
        let l = [(-0.8, -0.8), (0.8, -0.8), (0.8, -0.3), (-0.3, -0.3), (-0.3, 0.8), (-0.8, 0.8)]
            .map(|(x, y)| Vec2::new(x, y))
            .to_vec();
        let soup = [
            (-0.8, -0.5),
            (0.2, -0.6),
            (-0.2, 0.4),
            (0.0, -0.2),
            (0.8, 0.1),
            (0.3, 0.7),
            (-0.6, 0.6),
            (0.6, -0.7),
        ]
        .map(|(x, y)| Vec2::new(x, y))
        .to_vec();
        vec![
            (build(star, star_tris), "star"),
            (build(ring, ring_tris.collect()), "ring"),
            (build(l, vec![[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]), "L"),
            // [6, 0, 0] is degenerate: the segment from (-0.6, 0.6) to (-0.8, -0.5).
            (build(soup, vec![[0, 1, 2], [3, 4, 5], [1, 7, 4], [2, 5, 6], [6, 0, 0]]), "soup"),
        ]
    })
}

/// Which kinds a random 2D scene draws, with weights.
#[derive(Clone, Copy, Debug)]
pub struct SceneMix2 {
    pub convex: u32,
    pub compound: u32,
    pub polyline: u32,
    pub mesh: u32,
}

impl SceneMix2 {
    /// Every kind, convex shapes most often.
    pub const ALL: Self = Self { convex: 8, compound: 3, polyline: 3, mesh: 3 };
}

/// A random shape of the mix, about a unit across under a unit placement.
pub fn random_scene_shape2(rng: &mut TestRng, mix: SceneMix2) -> Shape2 {
    let total = mix.convex + mix.compound + mix.polyline + mix.mesh;
    let pick = rng.random_range(0..total);
    if pick < mix.convex {
        Shape2::Convex(random_convex2(rng))
    } else if pick < mix.convex + mix.compound {
        random_compound2(rng).into()
    } else if pick < mix.convex + mix.compound + mix.polyline {
        random_polyline2(rng).into()
    } else {
        let meshes = scene_meshes2();
        Shape2::Mesh(meshes[rng.random_range(0..meshes.len())].0.clone())
    }
}

/// A random placement of a scene shape, translated within `[-half, half)²`.
pub fn random_placement2(rng: &mut TestRng, half: f32) -> Affine2 {
    Affine2::from_mat2_translation(random_linear2(rng), random::point2(rng, half))
}

/// The placement moved a little: turned by up to `turn` radians about its origin, translated by
/// up to `shift` per axis, and kept within `[-half, half]²`.
pub fn nudged2(rng: &mut TestRng, placement: &Affine2, shift: f32, turn: f32, half: f32) -> Affine2 {
    let rotation = Mat2::from_angle(rng.random_range(-turn..turn));
    let t = (placement.translation + random::point2(rng, shift)).clamp(Vec2::splat(-half), Vec2::splat(half));
    Affine2::from_mat2_translation(rotation * placement.matrix2, t)
}

/// A random collider of the mix within `[-half, half)²`, with random roles, filter and user
/// data (below 16).
pub fn random_desc2(rng: &mut TestRng, mix: SceneMix2, roles: SceneRoles, half: f32) -> ColliderDesc2 {
    let shape = random_scene_shape2(rng, mix);
    let placement = random_placement2(rng, half);
    let filter = if rng.random_bool(0.6) { kollide::world::CollisionFilter::ALL } else { random_filter(rng) };
    ColliderDesc2::new(shape, placement)
        .with_filter(filter)
        .sensor(rng.random_bool(roles.sensor))
        .fixed(rng.random_bool(roles.fixed))
        .with_user_data(rng.random_range(0..16))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library's local box (exact for convex shapes, polylines and meshes; the children's
    /// exact boxes for compounds) lies in the reference box.
    #[test]
    fn reference_boxes_contain_the_library_boxes() {
        let mut rng = random::rng(7);
        for _ in 0..2000 {
            let shape = random_scene_shape2(&mut rng, SceneMix2::ALL);
            let (lo, hi) = reference_box2(&shape);
            let library = query::bounds2(&shape, &Affine2::IDENTITY).unwrap();
            let tol = Vec2::splat(1e-5);
            assert!(lo.cmple(library.min + tol).all() && library.max.cmple(hi + tol).all(), "{shape:?}");
        }
    }
}
