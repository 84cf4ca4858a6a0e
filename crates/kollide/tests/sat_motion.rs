//! The separating-axis motion resolution (`kollide::motion`) against the exact references of
//! `kollide_testkit::reference_sat`: exact apartness at the start, along the path and at the end,
//! the seed's candidates enumerated in `f64`, and the obstacles-in-turn rule over a plain list.

use kollide::bounds::Aabb2;
use kollide::broad::{BroadPhase, BruteForce, DynamicTree, SweepAndPrune};
use kollide::math::Vec2;
use kollide::motion::{
    MAX_COORDINATE, MotionResolution2, SatAxes, SatError, resolve_motion_among2, resolve_motion2,
};
use kollide_testkit::cases;
use kollide_testkit::random::{TestRng, point2, rng};
use kollide_testkit::reference_sat::{
    apart_exact, candidate_bounds, path_apart_exact, random_convex_polygon, resolve_among_by_list,
    separation_f64, strict_hull,
};
use rand::Rng;

fn rect(min: Vec2, max: Vec2) -> Vec<Vec2> {
    vec![min, Vec2::new(max.x, min.y), max, Vec2::new(min.x, max.y)]
}

fn moved(points: &[Vec2], by: Vec2) -> Vec<Vec2> {
    points.iter().map(|&p| p + by).collect()
}

fn length2(v: Vec2) -> f64 {
    v.as_dvec2().length_squared()
}

fn same_bits(a: Vec2, b: Vec2) -> bool {
    a.x.to_bits() == b.x.to_bits() && a.y.to_bits() == b.y.to_bits()
}

/// A test polygon around a random center in `[-half, half)²`: mostly random convex polygons, also boxes and polygons on a
/// coarse grid (exact contacts and parallel faces), segments, points, repeated vertices, and
/// either winding.
fn polygon(rng: &mut TestRng, half: f32) -> Vec<Vec2> {
    let center = point2(rng, half);
    let snap = |p: Vec2| (p * 8.0).round() / 8.0;
    let size = rng.random_range(0.3..3.0);
    let mut points = match rng.random_range(0..100) {
        0..60 => random_convex_polygon(rng, center, size, 8),
        60..75 => {
            let half = Vec2::new(rng.random_range(1..16) as f32, rng.random_range(1..16) as f32) / 8.0;
            rect(snap(center) - half, snap(center) + half)
        }
        75..85 => {
            let p = random_convex_polygon(rng, center, size.max(1.0), 6);
            strict_hull(&p.into_iter().map(snap).collect::<Vec<_>>())
        }
        85..91 => vec![center, center + Vec2::new(rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0))],
        91..94 => vec![center],
        _ => {
            let mut p = random_convex_polygon(rng, center, size, 6);
            let i = rng.random_range(0..p.len());
            p.insert(i, p[i]);
            p
        }
    };
    if rng.random_bool(0.5) {
        points.reverse();
    }
    points
}

fn centroid(points: &[Vec2]) -> Vec2 {
    points.iter().sum::<Vec2>() / points.len() as f32
}

/// Moves `s`, or changes `v`, so that the polygons touch along x or y at the start or at the end,
/// up to a few units of rounding either way (exactly for grid polygons): the cases within the
/// `f32` error bound of contact, decided by exact tests.
fn near_contact(rng: &mut TestRng, m: &[Vec2], s: &mut [Vec2], v: &mut Vec2) {
    let axis = rng.random_range(0..2);
    let m_high = m.iter().map(|p| p[axis]).fold(f32::NEG_INFINITY, f32::max);
    let s_low = s.iter().map(|p| p[axis]).fold(f32::INFINITY, f32::min);
    let ulps = rng.random_range(-3..=3) as f32;
    let nudge = |x: f32| x + ulps * x.abs().max(1.0) * f32::EPSILON;
    if rng.random_bool(0.5) {
        let shift = nudge(m_high - s_low);
        s.iter_mut().for_each(|p| p[axis] += shift);
    } else {
        v[axis] = nudge(s_low - m_high);
    }
}

fn velocity(rng: &mut TestRng) -> Vec2 {
    match rng.random_range(0..20) {
        0 => Vec2::ZERO,
        1 => Vec2::new(rng.random_range(-16..=16) as f32 / 8.0, 0.0),
        2 => Vec2::new(0.0, rng.random_range(-16..=16) as f32 / 8.0),
        3..6 => Vec2::new(rng.random_range(-40..=40) as f32, rng.random_range(-40..=40) as f32) / 8.0,
        _ => Vec2::new(rng.random_range(-6.0..6.0), rng.random_range(-6.0..6.0)),
    }
}

fn random_axes(rng: &mut TestRng) -> SatAxes {
    match rng.random_range(0..6) {
        0 => SatAxes::EDGES,
        1 | 2 => SatAxes::EDGES_AND_VELOCITY,
        3 => SatAxes::all(),
        4 => SatAxes::EDGES_AND_VELOCITY.with_basic(3),
        _ => SatAxes::new(false, true).with_basic(rng.random_range(0..5)),
    }
}

/// The scale the library's tolerances are relative to.
fn scale(m: &[Vec2], s: &[Vec2], v: Vec2) -> f64 {
    let a = m.iter().chain(s).map(|p| p.abs().max_element()).fold(0.0f32, f32::max);
    f64::from(a + v.abs().max_element())
}

/// Every promise of `resolve_motion2` on one case, against the exact references.
fn check_case(m: &[Vec2], s: &[Vec2], v: Vec2, axes: &SatAxes) -> Result<(), String> {
    let r = resolve_motion2(m, s, v, axes).map_err(|e| format!("refused: {e}"))?;
    let w = r.velocity;
    let ctx = || format!("moving {m:?} stationary {s:?} velocity {v:?} axes {axes:?} -> {r:?}");
    if length2(w) > length2(v) || w.as_dvec2().dot(v.as_dvec2()) < 0.0 {
        return Err(format!("longer than or against the input: {}", ctx()));
    }
    let start_apart = apart_exact(m, Vec2::ZERO, s);
    if r.were_colliding == start_apart {
        return Err(format!("were_colliding is wrong: {}", ctx()));
    }
    if start_apart {
        let free = path_apart_exact(m, v, s);
        if r.would_have_collided == free {
            return Err(format!("would_have_collided is wrong: {}", ctx()));
        }
        if free && !same_bits(w, v) {
            return Err(format!("free motion changed: {}", ctx()));
        }
        if !path_apart_exact(m, w, s) {
            return Err(format!("the resolved path overlaps: {}", ctx()));
        }
        if r.will_collide {
            return Err(format!("will_collide from an apart start: {}", ctx()));
        }
        if !free {
            // The answer is the longest candidate: no shorter than any candidate the f64 enumeration
            // accepts with a margin, no longer than any it might accept.
            let tolerance = 1e-3 * scale(m, s, v);
            let bounds = candidate_bounds(m, s, v, axes, tolerance);
            let length = length2(w).sqrt();
            if length < bounds.certain - tolerance || length > bounds.possible + tolerance {
                return Err(format!("not the longest candidate ({bounds:?}, got {length}): {}", ctx()));
            }
        }
    } else {
        let end_apart = apart_exact(m, v, s);
        if r.would_have_collided == end_apart {
            return Err(format!("would_have_collided (end) is wrong: {}", ctx()));
        }
        if end_apart && !same_bits(w, v) {
            return Err(format!("moving out of the overlap changed the velocity: {}", ctx()));
        }
        if r.will_collide == apart_exact(m, w, s) {
            return Err(format!("will_collide is wrong: {}", ctx()));
        }
        let tolerance = 1e-5 * scale(m, s, v);
        if separation_f64(m, w, s) < separation_f64(m, Vec2::ZERO, s) - tolerance {
            return Err(format!("the resolution went deeper: {}", ctx()));
        }
    }
    Ok(())
}

#[test]
fn resolutions_never_overlap_lengthen_or_reverse_and_their_flags_are_exact() {
    let mut rng = rng(0x5a7_0001);
    let (mut apart, mut hits, mut slides) = (0usize, 0usize, 0usize);
    for _ in 0..cases(100_000) {
        let m = polygon(&mut rng, 4.0);
        let mut s = polygon(&mut rng, 4.0);
        // Half the velocities aim at the obstacle, falling short of it, reaching or passing it.
        let mut v = if rng.random_bool(0.5) {
            let aim = centroid(&s) - centroid(&m);
            aim * rng.random_range(0.2..2.0) + point2(&mut rng, 1.0)
        } else {
            velocity(&mut rng)
        };
        if rng.random_bool(0.25) {
            near_contact(&mut rng, &m, &mut s, &mut v);
        }
        let axes = random_axes(&mut rng);
        if let Err(e) = check_case(&m, &s, v, &axes) {
            panic!("{e}");
        }
        let r = resolve_motion2(&m, &s, v, &axes).unwrap();
        apart += usize::from(!r.were_colliding);
        hits += usize::from(!r.were_colliding && r.would_have_collided);
        slides += usize::from(!r.were_colliding && r.would_have_collided && r.velocity != Vec2::ZERO);
    }
    // The mix covers every branch: apart and overlapping starts, misses, stops and slides.
    let n = cases(100_000);
    eprintln!("{apart} apart, {hits} hits, {slides} nonzero");
    assert!(apart > n / 2 && apart < n * 19 / 20, "{apart} apart starts of {n}");
    assert!(hits > n / 5 && slides > hits / 2, "{hits} hits, {slides} with a nonzero answer");
}

#[test]
fn a_polygon_moving_diagonally_into_a_wall_slides_along_it() {
    // A wall whose face is the line through the origin with outward normal n (30° from x), and a
    // hexagon 0.5 in front of it moving into it at 45° to the face.
    let n = Vec2::from_angle(std::f32::consts::FRAC_PI_6);
    let t = n.perp();
    let wall: Vec<Vec2> = [(-20.0, 0.0), (20.0, 0.0), (20.0, -3.0), (-20.0, -3.0)]
        .iter()
        .map(|&(a, b)| t * a + n * b)
        .collect();
    let hexagon: Vec<Vec2> =
        (0..6).map(|i| n * 1.5 + Vec2::from_angle(i as f32 * std::f32::consts::FRAC_PI_3)).collect();
    let gap = 1.5 - 1.0f32 * (std::f32::consts::FRAC_PI_6).cos(); // the hexagon's reach along n is cos 30°
    let v = t * 2.0 - n * 2.0;
    for axes in [SatAxes::default(), SatAxes::all()] {
        let r = resolve_motion2(&hexagon, &wall, v, &axes).unwrap();
        assert!(!r.were_colliding && r.would_have_collided && !r.will_collide, "{r:?}");
        let w = r.velocity;
        // The motion along the face is kept, the motion into it stops at the face.
        assert!((w.dot(t) - 2.0).abs() < 1e-4, "{w:?}");
        assert!((w.dot(n) + gap).abs() < 1e-3 && w.dot(n) > -gap, "{w:?} gap {gap}");
        assert!(path_apart_exact(&hexagon, w, &wall));
    }
}

#[test]
fn the_velocity_axis_alone_stops_short_along_the_motion() {
    let axes = SatAxes::new(false, true);
    let wall = rect(Vec2::new(4.0, 1.0), Vec2::new(5.0, 2.0));
    let square = rect(Vec2::ZERO, Vec2::ONE);
    let v = Vec2::new(6.0, 3.0);
    let r = resolve_motion2(&square, &wall, v, &axes).unwrap();
    let w = r.velocity;
    assert!(r.would_have_collided && w != Vec2::ZERO);
    assert!(w.perp_dot(v).abs() < 1e-5 && w.dot(v) > 0.0, "{w:?} is not along {v:?}");
    assert!(w.length() < v.length() && path_apart_exact(&square, w, &wall));
    // Where the projections onto v touch (2.4, 1.2), short of the first contact along v (3, 1.5).
    assert!(w.x > 2.39 && w.x <= 2.4, "{w:?}");
}

#[test]
fn a_box_falling_on_a_floor_stops_on_it_and_then_slides_along_it() {
    let floor = rect(Vec2::new(-50.0, -1.0), Vec2::new(50.0, 0.0));
    let mut body = rect(Vec2::new(0.0, 5.0), Vec2::new(1.0, 6.0));
    let r = resolve_motion2(&body, &floor, Vec2::new(0.0, -8.0), &SatAxes::default()).unwrap();
    assert!(r.would_have_collided && r.velocity.x == 0.0, "{r:?}");
    body = moved(&body, r.velocity);
    let height = body[0].y;
    assert!((0.0..1e-3).contains(&height), "landed at {height}");
    for frame in 0..100 {
        let v = Vec2::new(0.3, -0.5);
        let r = resolve_motion2(&body, &floor, v, &SatAxes::default()).unwrap();
        assert!(!r.were_colliding && r.would_have_collided, "frame {frame}: {r:?}");
        assert!(path_apart_exact(&body, r.velocity, &floor), "frame {frame}");
        assert_eq!(r.velocity.x, 0.3, "frame {frame}: the slide keeps the horizontal motion");
        body = moved(&body, r.velocity);
        assert!(apart_exact(&body, Vec2::ZERO, &floor) && body[0].y < 1e-3, "frame {frame}: {body:?}");
    }
}

#[test]
fn a_box_resting_exactly_on_a_floor_moves_along_it_unchanged() {
    // Touching is not overlapping: decided exactly, so the free motion keeps its bits.
    let floor = rect(Vec2::new(-5.0, -1.0), Vec2::new(5.0, 0.0));
    let body = rect(Vec2::new(0.1, 0.0), Vec2::new(1.1, 1.0));
    for v in [Vec2::new(0.7, 0.0), Vec2::new(-0.3, 0.0), Vec2::new(0.2, 0.5), Vec2::ZERO] {
        let r = resolve_motion2(&body, &floor, v, &SatAxes::default()).unwrap();
        assert_eq!(
            r,
            MotionResolution2 {
                were_colliding: false,
                would_have_collided: false,
                will_collide: false,
                velocity: v
            }
        );
    }
    // Pressing into the floor slides.
    let r = resolve_motion2(&body, &floor, Vec2::new(0.7, -0.2), &SatAxes::default()).unwrap();
    assert!(
        r.would_have_collided && r.velocity.x == 0.7 && r.velocity.y >= 0.0 && r.velocity.y < 1e-3,
        "{r:?}"
    );
}

#[test]
fn a_fast_box_does_not_tunnel_through_a_thin_wall() {
    let wall = rect(Vec2::new(0.0, -5.0), Vec2::new(0.05, 5.0));
    let body = rect(Vec2::new(-3.0, 0.0), Vec2::new(-2.0, 1.0));
    let v = Vec2::new(10.0, 0.0);
    // The end position alone is clear of the wall.
    assert!(apart_exact(&body, v, &wall));
    let r = resolve_motion2(&body, &wall, v, &SatAxes::default()).unwrap();
    assert!(r.would_have_collided && r.velocity.x > 1.99 && r.velocity.x <= 2.0, "{r:?}");
    assert!(path_apart_exact(&body, r.velocity, &wall));
}

#[test]
fn from_an_overlap_the_resolution_leaves_or_does_not_go_deeper() {
    let floor = rect(Vec2::new(-5.0, -1.0), Vec2::new(5.0, 0.0));
    let sunk = rect(Vec2::new(0.0, -0.25), Vec2::new(1.0, 0.75));
    let axes = SatAxes::default();
    // Out of the floor: the input, unchanged.
    let up = resolve_motion2(&sunk, &floor, Vec2::new(0.0, 1.0), &axes).unwrap();
    assert_eq!(
        up,
        MotionResolution2 {
            were_colliding: true,
            would_have_collided: false,
            will_collide: false,
            velocity: Vec2::new(0.0, 1.0)
        }
    );
    // Along the floor: still sunk, the same depth.
    let along = resolve_motion2(&sunk, &floor, Vec2::new(1.0, 0.0), &axes).unwrap();
    assert_eq!(
        along,
        MotionResolution2 {
            were_colliding: true,
            would_have_collided: true,
            will_collide: true,
            velocity: Vec2::new(1.0, 0.0)
        }
    );
    // Down and sideways: pushed out of the floor within the input's length.
    let down = resolve_motion2(&sunk, &floor, Vec2::new(1.0, -0.5), &axes).unwrap();
    assert!(down.were_colliding && down.would_have_collided && !down.will_collide, "{down:?}");
    assert!(apart_exact(&sunk, down.velocity, &floor) && down.velocity.x == 1.0);
    // Straight down, too short to get out: the deeper component is removed.
    let straight = resolve_motion2(&sunk, &floor, Vec2::new(0.0, -0.1), &axes).unwrap();
    assert_eq!(straight.velocity, Vec2::ZERO);
    assert!(straight.will_collide);
}

#[test]
fn points_and_segments_are_valid_polygons() {
    let axes = SatAxes::default();
    let square = rect(Vec2::ZERO, Vec2::ONE);
    // A point flying through a square stops at it.
    let r = resolve_motion2(&[Vec2::new(-1.0, 0.5)], &square, Vec2::new(3.0, 0.0), &axes).unwrap();
    assert!(r.would_have_collided && r.velocity.x <= 1.0 && r.velocity.x > 0.99, "{r:?}");
    // Two points never collide; neither do collinear segments.
    let r = resolve_motion2(&[Vec2::ZERO], &[Vec2::X], Vec2::new(2.0, 0.0), &axes).unwrap();
    assert!(!r.would_have_collided && r.velocity == Vec2::new(2.0, 0.0));
    let segment = [Vec2::ZERO, Vec2::X];
    let r =
        resolve_motion2(&segment, &moved(&segment, Vec2::new(2.0, 0.0)), Vec2::new(3.0, 0.0), &axes).unwrap();
    assert!(!r.would_have_collided);
    // A segment falling across another one stops on it.
    let across = [Vec2::new(0.5, 1.0), Vec2::new(0.5, 2.0)];
    let r = resolve_motion2(&across, &segment, Vec2::new(0.0, -2.0), &axes).unwrap();
    assert!(r.would_have_collided && r.velocity.y > -1.0 && r.velocity.y < -0.99, "{r:?}");
}

#[test]
fn free_motion_keeps_its_bits() {
    let square = rect(Vec2::ZERO, Vec2::ONE);
    let far = rect(Vec2::splat(10.0), Vec2::splat(11.0));
    for v in [Vec2::new(-0.0, 1e-40), Vec2::new(0.1, -0.0), Vec2::new(-3.0, 2.0), Vec2::ZERO] {
        let r = resolve_motion2(&square, &far, v, &SatAxes::all()).unwrap();
        assert!(same_bits(r.velocity, v) && !r.would_have_collided, "{v:?} -> {r:?}");
    }
}

#[test]
fn extreme_scales_and_exact_contacts_pass_every_check() {
    let square = rect(Vec2::ZERO, Vec2::ONE);
    let touching = rect(Vec2::new(1.0, -0.5), Vec2::new(2.0, 0.5));
    let far = |by: f32| moved(&square, Vec2::splat(by));
    let segment = [Vec2::new(1.0, 0.25), Vec2::new(1.0, 0.75)];
    let cases: Vec<(Vec<Vec2>, Vec<Vec2>, Vec2)> = vec![
        // Tiny velocities into, along and away from an exact contact.
        (square.clone(), touching.clone(), Vec2::new(1e-20, 3e-21)),
        (square.clone(), touching.clone(), Vec2::new(-1e-20, 3e-21)),
        (square.clone(), touching.clone(), Vec2::new(0.0, 1e-22)),
        (square.clone(), touching.clone(), Vec2::new(1e-3, 0.0)),
        // Far from the origin, where the skin grows with the coordinates.
        (far(60_000.0), moved(&touching, Vec2::splat(60_000.0)), Vec2::new(0.5, 0.25)),
        (far(60_000.0), moved(&touching, Vec2::new(60_000.5, 60_000.0)), Vec2::new(3.0, 0.1)),
        // A segment lying on the square's face, and crossing it.
        (segment.to_vec(), square.clone(), Vec2::new(-0.5, 0.1)),
        (segment.to_vec(), square.clone(), Vec2::new(0.5, 0.1)),
        (moved(&segment, Vec2::new(0.5, 0.0)), square.clone(), Vec2::new(0.2, 0.0)),
        // Huge velocities.
        (square.clone(), touching.clone(), Vec2::new(1e6, 1e5)),
        (square.clone(), far(-3.0), Vec2::new(-1e6, -1e6)),
    ];
    for (m, s, v) in &cases {
        for axes in [SatAxes::EDGES, SatAxes::default(), SatAxes::all()] {
            if let Err(e) = check_case(m, s, *v, &axes) {
                panic!("{e}");
            }
            if let Err(e) = check_case(s, m, -*v, &axes) {
                panic!("swapped: {e}");
            }
        }
    }
}

#[test]
fn basic_axes_are_unit_evenly_spaced_and_exact_on_the_coordinate_axes() {
    for k in [1usize, 2, 3, 4, 8, 16] {
        let axes = SatAxes::EDGES.with_basic(k);
        assert_eq!(axes.basic().len(), k);
        for (i, n) in axes.basic().iter().enumerate() {
            assert!((n.length() - 1.0).abs() < 1e-6);
            let angle = f64::from(n.y).atan2(f64::from(n.x));
            assert!((angle - std::f64::consts::PI * i as f64 / k as f64).abs() < 1e-6);
        }
        assert_eq!(axes.basic()[0], Vec2::X);
        if k % 2 == 0 {
            assert_eq!(axes.basic()[k / 2], Vec2::Y);
        }
    }
    assert_eq!(SatAxes::EDGES.with_basic(1 << 20).basic().len(), SatAxes::MAX_BASIC);
    assert!(SatAxes::all().with_basic(0).basic().is_empty());
}

#[test]
fn bad_input_is_refused() {
    let axes = SatAxes::default();
    let good = rect(Vec2::ZERO, Vec2::ONE);
    let v = Vec2::X;
    assert_eq!(resolve_motion2(&[], &good, v, &axes), Err(SatError::EmptyMoving));
    assert_eq!(resolve_motion2(&good, &[], v, &axes), Err(SatError::EmptyStationary));
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.0 * MAX_COORDINATE] {
        let mut poly = good.clone();
        poly[2].y = bad;
        assert_eq!(resolve_motion2(&poly, &good, v, &axes), Err(SatError::MovingVertex(2)));
        assert_eq!(resolve_motion2(&good, &poly, v, &axes), Err(SatError::StationaryVertex(2)));
        assert_eq!(resolve_motion2(&good, &good, Vec2::new(0.0, bad), &axes), Err(SatError::Velocity));
        assert_eq!(resolve_motion2(&good, &good, Vec2::new(bad, 0.0), &axes), Err(SatError::Velocity));
    }
    // The largest accepted values work without overflow.
    let huge = rect(Vec2::splat(-MAX_COORDINATE), Vec2::splat(MAX_COORDINATE));
    let r =
        resolve_motion2(&huge, &moved(&good, Vec2::splat(0.5)), Vec2::splat(MAX_COORDINATE), &axes).unwrap();
    assert!(r.were_colliding && r.velocity.is_finite());

    let mut broad = BruteForce::<Aabb2>::new();
    broad.insert(7, Aabb2::new(Vec2::ZERO, Vec2::ONE)).unwrap();
    let mut found = Vec::new();
    let poly_of = |bad: Option<&'static [Vec2]>| move |_: u32| bad;
    static NAN: [Vec2; 1] = [Vec2::NAN];
    assert_eq!(
        resolve_motion_among2(&good, v, &broad, poly_of(Some(&NAN[..])), &axes, &mut found),
        Err(SatError::Obstacle(7))
    );
    assert_eq!(
        resolve_motion_among2(&good, v, &broad, poly_of(Some(&[][..])), &axes, &mut found),
        Err(SatError::Obstacle(7))
    );
    assert_eq!(
        resolve_motion_among2(&[], v, &broad, poly_of(None), &axes, &mut found),
        Err(SatError::EmptyMoving)
    );
    assert_eq!(
        resolve_motion_among2(&good, Vec2::NAN, &broad, poly_of(None), &axes, &mut found),
        Err(SatError::Velocity)
    );
    // Ids without a polygon are skipped.
    let r = resolve_motion_among2(&good, v, &broad, poly_of(None), &axes, &mut found).unwrap();
    assert!(same_bits(r.velocity, v) && !r.were_colliding);
}

/// A random scene of obstacles, some ids without a polygon.
fn scene(rng: &mut TestRng) -> Vec<(u32, Option<Vec<Vec2>>)> {
    let count = rng.random_range(0..24);
    let mut id = 0;
    (0..count)
        .map(|_| {
            id += rng.random_range(1..4);
            let polygon = (!rng.random_bool(0.05)).then(|| polygon(rng, 12.0));
            (id, polygon)
        })
        .collect()
}

#[test]
fn resolution_among_a_broad_phase_equals_the_list_in_turn() {
    let mut rng = rng(0x5a7_0002);
    let mut found = Vec::new();
    let (mut changed, mut safe_checks) = (0usize, 0usize);
    for case in 0..cases(10_000) {
        let obstacles = scene(&mut rng);
        let m = polygon(&mut rng, 8.0);
        let v = velocity(&mut rng) * 2.0;
        let axes = random_axes(&mut rng);
        let polygon_of = |id: u32| obstacles.iter().find(|(i, _)| *i == id).and_then(|(_, p)| p.as_deref());
        let boxes = obstacles.iter().filter_map(|(id, p)| Some((*id, Aabb2::from_points(p.as_deref()?)?)));
        let listed: Vec<&[Vec2]> = obstacles.iter().filter_map(|(_, p)| p.as_deref()).collect();
        let expected = resolve_among_by_list(&m, v, &listed, &axes);
        let got = match case % 3 {
            0 => {
                let mut broad = DynamicTree::<Aabb2>::new();
                boxes.for_each(|(id, b)| broad.insert(id, b).unwrap());
                resolve_motion_among2(&m, v, &broad, polygon_of, &axes, &mut found)
            }
            1 => {
                let mut broad = SweepAndPrune::<Aabb2>::new();
                boxes.for_each(|(id, b)| broad.insert(id, b).unwrap());
                resolve_motion_among2(&m, v, &broad, polygon_of, &axes, &mut found)
            }
            _ => {
                let mut broad = BruteForce::<Aabb2>::new();
                boxes.for_each(|(id, b)| broad.insert(id, b).unwrap());
                resolve_motion_among2(&m, v, &broad, polygon_of, &axes, &mut found)
            }
        }
        .unwrap();
        assert!(
            got.were_colliding == expected.were_colliding
                && got.would_have_collided == expected.would_have_collided
                && got.will_collide == expected.will_collide
                && same_bits(got.velocity, expected.velocity),
            "case {case}: {got:?} != {expected:?}"
        );
        changed += usize::from(!same_bits(got.velocity, v));
        // Starting apart from everything, the answer's path is apart from everything.
        if !got.were_colliding && case % 4 == 0 {
            safe_checks += 1;
            for p in &listed {
                assert!(path_apart_exact(&m, got.velocity, p), "case {case}: the path overlaps {p:?}");
            }
        }
    }
    assert!(
        changed > cases(10_000) / 5 && safe_checks > cases(10_000) / 8,
        "{changed} changed, {safe_checks} checked"
    );
}
