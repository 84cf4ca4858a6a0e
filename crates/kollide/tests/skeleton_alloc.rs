//! Skeletons allocate nothing per frame: after a first pass over an animation (which grows the
//! world arrays, the query's scratch and the output vectors), a second pass of `update` and the
//! projectile queries makes no allocation at all, counted by a global allocator on this thread.
//! In its own test binary, since the allocator is global.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use glam::{Affine2, Affine3A, Quat, Vec2, Vec3};
use kollide::math::{Ray2, Ray3};
use kollide::skeleton::{
    MovingBall2, MovingBall3, NodeVolume, RayProjectile2, RayProjectile3, Skeleton2, Skeleton3,
    SkeletonNode2, SkeletonNode3, SkeletonQuery2, SkeletonQuery3,
};

/// The system allocator, counting the allocations (and reallocations) made while this
/// thread's counter is armed.
struct Counting;

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the thread-locals may be gone while a thread shuts down.
    let _ = ARMED.try_with(|armed| {
        if armed.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The allocations `f` makes on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    ARMED.with(|a| a.set(true));
    f();
    ARMED.with(|a| a.set(false));
    COUNT.with(|c| c.get())
}

const FRAMES: usize = 20;

/// A 16-node skeleton: a spine of 4 capsules with three 4-ball limbs.
fn nodes2() -> Vec<SkeletonNode2> {
    (0..16)
        .map(|i| {
            let parent = match i {
                0 => None,
                1..4 => Some(i - 1),
                _ => Some(if (i - 4) % 4 == 0 { (i - 4) / 4 } else { i - 1 }),
            };
            let volume = if i < 4 {
                NodeVolume::Capsule { half_height: 0.3, radius: 0.2 }
            } else {
                NodeVolume::Ball { radius: 0.15 }
            };
            SkeletonNode2 { parent, local: Affine2::from_translation(Vec2::new(0.0, 0.5)), volume }
        })
        .collect()
}

/// The local transform of node `i` at frame `k` (joint angles as sines of time).
fn local2(i: usize, k: usize) -> Affine2 {
    let angle = (k as f32 * 0.1 + i as f32).sin() * 0.6;
    Affine2::from_angle_translation(angle, Vec2::new(0.0, 0.5))
}

#[test]
fn update_and_queries_allocate_nothing_after_the_first_frames() {
    // 2D: 50 skeletons in a 10 × 5 grid, 100 bullets and 30 rays crossing them.
    let nodes = nodes2();
    let mut skeletons: Vec<Skeleton2> = (0..50).map(|_| Skeleton2::new(&nodes).unwrap()).collect();
    let bullets: Vec<MovingBall2> = (0..100)
        .map(|b| MovingBall2 {
            center: Vec2::new(-2.0 + (b % 10) as f32 * 2.5, (b / 10) as f32 * 1.1),
            radius: 0.1,
            displacement: Vec2::new(1.0, 0.3),
        })
        .collect();
    let rays: Vec<RayProjectile2> = (0..30)
        .map(|r| RayProjectile2 {
            ray: Ray2::new(Vec2::new(-5.0, r as f32 * 0.4), Vec2::new(1.0, 0.05)),
            max_t: if r % 3 == 0 { f32::INFINITY } else { 40.0 },
        })
        .collect();
    let mut query = SkeletonQuery2::new();
    let (mut hits, mut ray_hits) = (Vec::new(), Vec::new());
    let mut frame = |skeletons: &mut [Skeleton2], k: usize| {
        for (s, skeleton) in skeletons.iter_mut().enumerate() {
            for (i, local) in skeleton.locals_mut().iter_mut().enumerate() {
                *local = local2(i + s, k);
            }
            let at = Vec2::new((s % 10) as f32 * 2.5, (s / 10) as f32 * 3.0);
            skeleton.update(&Affine2::from_angle_translation(k as f32 * 0.01, at));
        }
        query.moving_balls(skeletons, &bullets, &mut hits);
        query.rays(skeletons, &rays, &mut ray_hits);
        hits.len() + ray_hits.len()
    };
    let mut first = 0;
    for k in 0..FRAMES {
        first += frame(&mut skeletons, k);
    }
    let mut second = 0;
    assert_eq!(
        allocations(|| {
            for k in 0..FRAMES {
                second += frame(&mut skeletons, k);
            }
        }),
        0
    );
    assert_eq!(first, second);
    assert!(first > 100, "{first} hits: the test must exercise the narrow phase");

    // 3D: the same skeletons standing in space, turned about y.
    let nodes3: Vec<SkeletonNode3> = nodes
        .iter()
        .map(|n| SkeletonNode3 {
            parent: n.parent,
            local: Affine3A::from_translation(Vec3::Y * 0.5),
            volume: n.volume,
        })
        .collect();
    let mut skeletons3: Vec<Skeleton3> = (0..20).map(|_| Skeleton3::new(&nodes3).unwrap()).collect();
    let bullets3: Vec<MovingBall3> = bullets
        .iter()
        .map(|b| MovingBall3 {
            center: b.center.extend(0.0),
            radius: 0.1,
            displacement: b.displacement.extend(0.1),
        })
        .collect();
    let rays3: Vec<RayProjectile3> = rays
        .iter()
        .map(|r| RayProjectile3 {
            ray: Ray3::new(r.ray.origin.extend(0.0), r.ray.dir.extend(0.0)),
            max_t: r.max_t,
        })
        .collect();
    let mut query3 = SkeletonQuery3::new();
    let (mut hits3, mut ray_hits3) = (Vec::new(), Vec::new());
    let mut frame3 = |skeletons: &mut [Skeleton3], k: usize| {
        for (s, skeleton) in skeletons.iter_mut().enumerate() {
            for (i, local) in skeleton.locals_mut().iter_mut().enumerate() {
                let angle = (k as f32 * 0.1 + (i + s) as f32).sin() * 0.6;
                *local = Affine3A::from_rotation_translation(Quat::from_rotation_z(angle), Vec3::Y * 0.5);
            }
            let at = Vec3::new((s % 10) as f32 * 2.5, (s / 10) as f32 * 3.0, 0.0);
            skeleton.update(&Affine3A::from_rotation_translation(Quat::from_rotation_y(k as f32 * 0.01), at));
        }
        query3.moving_balls(skeletons, &bullets3, &mut hits3);
        query3.rays(skeletons, &rays3, &mut ray_hits3);
        hits3.len() + ray_hits3.len()
    };
    let mut first = 0;
    for k in 0..FRAMES {
        first += frame3(&mut skeletons3, k);
    }
    let mut second = 0;
    assert_eq!(
        allocations(|| {
            for k in 0..FRAMES {
                second += frame3(&mut skeletons3, k);
            }
        }),
        0
    );
    assert_eq!(first, second);
    assert!(first > 50, "{first} hits: the test must exercise the narrow phase");
    // The counter works: a new vector allocates.
    assert!(allocations(|| drop(std::hint::black_box(vec![1u8; 64]))) >= 1);
}
