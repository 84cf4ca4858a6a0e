//! The `bullets` scene (seed 002's shooter): hundreds of bullets against hundreds of animated
//! enemies made of bone circles. Each frame poses every skeleton (one root-to-leaf pass into a
//! flat array of world circles, reused frame to frame), then tests every bullet's swept circle
//! against the skeletons' bounding boxes and their bones, and every laser ray the same way.

use std::cell::RefCell;

use glam::{Affine2, Vec2};
use kollide::math::Ray2;
use kollide::skeleton::{
    MovingBall2, NodeVolume, RayProjectile2, Skeleton2, SkeletonHit, SkeletonNode2, SkeletonQuery2,
    SkeletonRayHit,
};
use kollide_testkit::random::{self, TestRng};
use rand::Rng;

use super::{Row, Scene, Settings, time_tests};

pub const SCENE: Scene = Scene {
    name: "bullets",
    about: "600 bullets and 60 lasers against 300 animated 16-bone skeletons (seed 002's shooter)",
    run,
};

const SKELETONS: usize = 300;
const BULLETS: usize = 600;
const LASERS: usize = 60;
const FRAMES: usize = 120;
const DT: f32 = 1.0 / 60.0;
/// Half the field's width and height.
const FIELD: Vec2 = Vec2::new(120.0, 60.0);

/// A 16-bone figure: `(parent, offset from the parent, radius)`: pelvis, spine, chest, head, two
/// three-bone arms and two three-bone legs.
const BONES: [(Option<u32>, [f32; 2], f32); 16] = [
    (None, [0.0, 0.0], 0.35),
    (Some(0), [0.0, 0.5], 0.3),
    (Some(1), [0.0, 0.5], 0.35),
    (Some(2), [0.0, 0.6], 0.3),
    (Some(2), [-0.45, 0.1], 0.15),
    (Some(4), [0.0, -0.5], 0.12),
    (Some(5), [0.0, -0.45], 0.1),
    (Some(2), [0.45, 0.1], 0.15),
    (Some(7), [0.0, -0.5], 0.12),
    (Some(8), [0.0, -0.45], 0.1),
    (Some(0), [-0.2, -0.2], 0.2),
    (Some(10), [0.0, -0.6], 0.17),
    (Some(11), [0.0, -0.55], 0.12),
    (Some(0), [0.2, -0.2], 0.2),
    (Some(13), [0.0, -0.6], 0.17),
    (Some(14), [0.0, -0.55], 0.12),
];

/// One enemy: where it walks and the phase of its gait.
struct Walker {
    position: Vec2,
    velocity: Vec2,
    phase: f32,
}

fn point(rng: &mut TestRng) -> Vec2 {
    Vec2::new(rng.random_range(-FIELD.x..FIELD.x), rng.random_range(-FIELD.y..FIELD.y))
}

/// Wraps a point into the field.
fn wrap(p: Vec2) -> Vec2 {
    (p + FIELD).rem_euclid(FIELD * 2.0) - FIELD
}

/// The whole scene: skeletons, their walkers, bullets, and the reused query state.
struct Field {
    skeletons: Vec<Skeleton2>,
    walkers: Vec<Walker>,
    bullets: Vec<(Vec2, Vec2)>,
    query: SkeletonQuery2,
    projectiles: Vec<MovingBall2>,
    lasers: Vec<RayProjectile2>,
    hits: Vec<SkeletonHit>,
    ray_hits: Vec<SkeletonRayHit>,
    frame: usize,
}

impl Field {
    fn new(rng: &mut TestRng) -> Self {
        let nodes: Vec<SkeletonNode2> = BONES
            .iter()
            .map(|&(parent, [x, y], radius)| SkeletonNode2 {
                parent,
                local: Affine2::from_translation(Vec2::new(x, y)),
                volume: NodeVolume::Ball { radius },
            })
            .collect();
        Self {
            skeletons: (0..SKELETONS).map(|_| Skeleton2::new(&nodes).expect("parents come first")).collect(),
            walkers: (0..SKELETONS)
                .map(|_| Walker {
                    position: point(rng),
                    velocity: Vec2::new(rng.random_range(-3.0..3.0), 0.0),
                    phase: rng.random_range(0.0..std::f32::consts::TAU),
                })
                .collect(),
            bullets: (0..BULLETS)
                .map(|_| (point(rng), Vec2::from_angle(rng.random_range(0.0..std::f32::consts::TAU)) * 40.0))
                .collect(),
            query: SkeletonQuery2::new(),
            projectiles: Vec::with_capacity(BULLETS),
            lasers: Vec::with_capacity(LASERS),
            hits: Vec::new(),
            ray_hits: Vec::new(),
            frame: 0,
        }
    }

    /// One frame: walk and pose every skeleton, move the bullets, sweep the lasers, then find
    /// every (projectile, skeleton, bone) hit. Returns the bullet and laser hit counts.
    fn step(&mut self) -> (usize, usize) {
        let time = self.frame as f32 * DT;
        self.frame += 1;
        for (skeleton, walker) in self.skeletons.iter_mut().zip(&mut self.walkers) {
            walker.position = wrap(walker.position + walker.velocity * DT);
            let swing = (time * 6.0 + walker.phase).sin();
            for (bone, angle) in [(4, 0.8), (7, -0.8), (10, -0.6), (13, 0.6), (5, 0.3), (11, 0.4)] {
                let offset = Vec2::from(BONES[bone].1);
                let turned = Affine2::from_angle_translation(angle * swing, offset);
                skeleton.set_local(bone as u32, turned).expect("the bone exists");
            }
            skeleton.update(&Affine2::from_translation(walker.position));
        }
        self.projectiles.clear();
        for (position, velocity) in &mut self.bullets {
            let displacement = *velocity * DT;
            self.projectiles.push(MovingBall2 { center: *position, radius: 0.1, displacement });
            *position = wrap(*position + displacement);
        }
        self.lasers.clear();
        for i in 0..LASERS {
            let angle = i as f32 / LASERS as f32 * std::f32::consts::TAU + time;
            self.lasers
                .push(RayProjectile2 { ray: Ray2::new(Vec2::ZERO, Vec2::from_angle(angle)), max_t: 150.0 });
        }
        self.query.moving_balls(&self.skeletons, &self.projectiles, &mut self.hits);
        self.query.rays(&self.skeletons, &self.lasers, &mut self.ray_hits);
        (self.hits.len(), self.ray_hits.len())
    }
}

fn run(settings: &Settings, notes: &mut Vec<String>) -> Vec<Row> {
    let mut rng = random::rng(settings.seed);
    let field = RefCell::new(Field::new(&mut rng));
    let frames: Vec<usize> = (0..if settings.items < 1000 { 10 } else { FRAMES }).collect();
    let (mut bullet_hits, mut laser_hits) = (0, 0);
    for _ in &frames {
        let (b, l) = field.borrow_mut().step();
        bullet_hits += b;
        laser_hits += l;
    }
    notes.push(format!(
        "per frame: {:.1} bullet hits and {:.1} laser hits, each reported as (projectile, skeleton, bone); \
         the skeletons' world circles live in flat arrays reused every frame",
        bullet_hits as f64 / frames.len() as f64,
        laser_hits as f64 / frames.len() as f64,
    ));
    vec![time_tests(
        "frame: pose 300 skeletons, 600 bullets + 60 lasers",
        "Skeleton2::update, SkeletonQuery2",
        &frames,
        settings,
        |_| field.borrow_mut().step().0 > 0,
    )]
}
