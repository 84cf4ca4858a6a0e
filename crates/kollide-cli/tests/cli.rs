//! Runs the `kollide` binary and checks exit status and key output lines.

use std::process::{Command, Output};

fn kollide(args: &[&str]) -> Output {
    let output =
        Command::new(env!("CARGO_BIN_EXE_kollide")).args(args).output().expect("the kollide binary runs");
    assert!(
        output.status.success(),
        "kollide {args:?} failed: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn stdout(args: &[&str]) -> String {
    String::from_utf8(kollide(args).stdout).expect("UTF-8 output")
}

#[test]
fn help_lists_every_subcommand() {
    let help = stdout(&["--help"]);
    assert!(help.contains("Usage: kollide"), "{help}");
    for line in ["demo", "check", "info", "help"] {
        assert!(help.lines().any(|l| l.trim_start().starts_with(line)), "no `{line}` in:\n{help}");
    }
    let demo_help = stdout(&["demo", "--help"]);
    assert!(demo_help.contains("--quick"), "{demo_help}");
    assert!(demo_help.contains("--seed"), "{demo_help}");
}

#[test]
fn info_prints_version_profile_and_query_families() {
    let info = stdout(&["info"]);
    assert!(info.contains(&format!("kollide {}", env!("CARGO_PKG_VERSION"))), "{info}");
    assert!(info.contains("build profile: "), "{info}");
    assert!(info.contains("cargo features: "), "{info}");
    assert!(info.contains("query families:"), "{info}");
    for family in [
        "bounding volumes",
        "closest points",
        "overlap tests",
        "ray casts",
        "2D",
        "triangle meshes",
        "broad phase",
        "mesh vs mesh",
        "sphere sets",
        "fields",
    ] {
        assert!(info.contains(family), "no `{family}` in:\n{info}");
    }
}

/// Parses the `tests` and `hits` columns of the row whose kollide function is `api`.
fn tests_and_hits(demo: &str, api: &str) -> (usize, usize) {
    let line = demo
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == api))
        .unwrap_or_else(|| panic!("no row for {api} in:\n{demo}"));
    let after: Vec<&str> = line.split_whitespace().skip_while(|w| *w != api).skip(1).collect();
    (after[0].parse().unwrap(), after[1].parse().unwrap())
}

#[test]
fn quick_demo_runs_every_primitive_test() {
    let demo = stdout(&["demo", "--quick"]);
    assert!(demo.contains("scene primitives"), "{demo}");
    assert!(demo.contains("time/test"), "{demo}");
    assert!(demo.contains("tests/s"), "{demo}");
    for api in [
        "Aabb3::ray_interval",
        "ray_triangle",
        "test_triangle_triangle",
        "Obb3::overlaps",
        "test_sphere_triangle",
        "point_in_polygon_winding",
        "Kdop26::overlaps",
    ] {
        let (tests, hits) = tests_and_hits(&demo, api);
        assert_eq!(tests, 512, "{api}");
        // A scene where nothing or everything hits would demonstrate only one branch.
        assert!(hits > 0 && hits < tests, "{api}: {hits} hits of {tests}");
    }
}

#[test]
fn quick_demo_runs_the_broad_phase_scene() {
    let demo = stdout(&["demo", "--quick"]);
    let scene = demo.split("scene crowd").nth(1).unwrap_or_else(|| panic!("no crowd scene in:\n{demo}"));
    // Every frame row: 60 frames, pairs beginning or ending in most of them.
    for implementation in ["DynamicTree:", "SpatialHash:", "SweepAndPrune:"] {
        let line = scene.lines().find(|l| l.contains(implementation)).unwrap_or_else(|| panic!("{scene}"));
        let (tests, hits) = tests_and_hits(line, "find_pairs");
        assert_eq!(tests, 60, "{line}");
        assert!(hits > 0, "{line}");
    }
    for api in ["BroadPhase::query_box", "BroadPhase::query_ray"] {
        let (tests, hits) = tests_and_hits(scene, api);
        assert_eq!(tests, 512, "{api}");
        assert!(hits > 0 && hits < tests, "{api}: {hits} hits of {tests}");
    }
    assert!(scene.contains("512 objects, 128 moving per frame"), "{scene}");
}

#[test]
fn quick_demo_runs_the_solids_scene() {
    let demo = stdout(&["demo", "--quick"]);
    let scene = demo.split("scene solids").nth(1).unwrap_or_else(|| panic!("no solids scene in:\n{demo}"));
    let scene = scene.split("scene ").next().unwrap_or(scene);
    for api in ["SphereSet::intersects_mesh", "field::first_point_inside"] {
        let (tests, hits) = tests_and_hits(scene, api);
        assert_eq!(tests, 32, "{api}");
        assert!(hits > 0 && hits < tests, "{api}: {hits} hits of {tests}");
    }
    // Both mesh-vs-mesh rows (cold, then cached a frame later) answer for the same 32 pairs.
    let rows: Vec<&str> = scene.lines().filter(|l| l.contains("MeshInstance::intersects_mesh")).collect();
    assert_eq!(rows.len(), 2, "{scene}");
    assert!(scene.contains("balls cover asteroid B's surface"), "{scene}");
}

#[test]
fn quick_demo_runs_the_convex_scene() {
    let demo = stdout(&["demo", "--quick"]);
    let scene = demo.split("scene convex").nth(1).unwrap_or_else(|| panic!("no convex scene in:\n{demo}"));
    let scene = scene.split("scene ").next().unwrap_or(scene);
    // Rigid and sheared rows of each pair query: 64 pairs, some touching and some apart.
    for api in ["narrow::distance", "narrow::contact", "narrow::contact_manifold"] {
        let rows: Vec<&str> = scene.lines().filter(|l| l.split_whitespace().any(|w| w == api)).collect();
        assert_eq!(rows.len(), 2, "{api}: {scene}");
        for row in rows {
            let (tests, hits) = tests_and_hits(row, api);
            assert_eq!(tests, 64, "{row}");
            assert!(hits > 0 && hits < tests, "{row}");
        }
    }
    let (tests, hits) = tests_and_hits(scene, "narrow::cast_ray");
    assert!(tests == 64 && hits > 0 && hits < tests, "{scene}");
    // The sliding box touches the grid at every step, with face normals (no ghost bumps).
    let (tests, hits) = tests_and_hits(scene, "narrow::convex_mesh_manifolds");
    assert!(tests == 64 && hits == tests, "{scene}");
    let worst: f32 = scene
        .split("worst contact normal ")
        .nth(1)
        .and_then(|rest| rest.split('°').next())
        .and_then(|angle| angle.parse().ok())
        .unwrap_or_else(|| panic!("no sliding-box note in:\n{scene}"));
    assert!(worst < 1.0, "{worst}°");
}

#[test]
fn demo_is_the_default_and_is_reproducible() {
    // Without a subcommand the full demo runs; compare only the seeded, deterministic columns
    // of the quick demo run twice.
    let a = stdout(&["demo", "--quick", "--seed", "7"]);
    let b = stdout(&["demo", "--quick", "--seed", "7"]);
    assert_eq!(tests_and_hits(&a, "test_triangle_triangle"), tests_and_hits(&b, "test_triangle_triangle"));
    let default = stdout(&[]);
    assert!(default.contains("scene primitives"), "{default}");
}

/// A vendored closed sphere mesh, radius about 126.
const SPHERE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/sphere_pyvista_840.ply");

#[test]
fn check_reports_overlap_containment_and_distance() {
    let touching = stdout(&["check", SPHERE, SPHERE, "--translate", "100,0,0"]);
    assert!(touching.contains("intersecting: yes, triangle"), "{touching}");
    assert!(touching.contains("intersecting triangle pairs: "), "{touching}");
    assert!(touching.contains("contacts: ") && touching.contains("region 0: point"), "{touching}");

    let inside = stdout(&["check", SPHERE, SPHERE, "--scale", "0.3", "--rotate", "10,20,30"]);
    assert!(inside.contains("intersecting: yes, B lies inside A"), "{inside}");

    let apart =
        stdout(&["check", SPHERE, SPHERE, "--translate", "300,0,0", "--scale", "1,0.5,1", "--sdf", "16"]);
    assert!(apart.contains("intersecting: no"), "{apart}");
    let distance: f32 = apart
        .lines()
        .find_map(|l| l.strip_prefix("distance: "))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no distance in:\n{apart}"));
    // The spheres' radii are about 126 (A) and 126 along x (B), so the gap is about 48.
    assert!((distance - 48.0).abs() < 3.0, "{distance}");
    assert!(apart.contains("no vertex of A is inside B's field"), "{apart}");
}

#[test]
fn check_refuses_bad_input_with_a_message() {
    for (args, message) in [
        (vec!["check", "no-such-file.obj", SPHERE], "no-such-file.obj"),
        (vec!["check", SPHERE, SPHERE, "--scale", "1,0,1"], "singular"),
    ] {
        let output =
            Command::new(env!("CARGO_BIN_EXE_kollide")).args(&args).output().expect("the binary runs");
        assert!(!output.status.success(), "{args:?} succeeded");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// Runs `kollide args`, which must fail; returns its stderr.
fn refused(args: &[&str]) -> String {
    let output =
        Command::new(env!("CARGO_BIN_EXE_kollide")).args(args).output().expect("the kollide binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !output.status.success(),
        "kollide {args:?} succeeded:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(!stderr.contains("panicked"), "kollide {args:?} panicked:\n{stderr}");
    stderr
}

#[test]
fn check_accepts_a_tiny_but_invertible_scale() {
    // The library accepts any placement it can invert in f32 (relative to the entries' size);
    // the CLI has no cutoff of its own.
    let out = stdout(&["check", SPHERE, SPHERE, "--scale", "1e-4"]);
    assert!(out.contains("intersecting: yes, B lies inside A"), "{out}");
}

#[test]
fn check_reports_a_placement_the_library_refuses_as_an_error() {
    // A determinant that overflows f32, one that underflows, and a far translation under a huge
    // inverse: the library refuses each, and the CLI says so instead of "intersecting: no".
    for args in [
        ["--scale", "1e19", "--translate", "0,0,0"],
        ["--scale", "1e-13", "--translate", "0,0,0"],
        ["--scale", "1e-12", "--translate", "1e30,0,0"],
    ] {
        let mut all = vec!["check", SPHERE, SPHERE];
        all.extend(args);
        let stderr = refused(&all);
        assert!(stderr.contains("B's placement") && stderr.contains("refused"), "{args:?}: {stderr}");
    }
}

#[test]
fn check_refuses_a_nan_or_negative_max_distance_at_parsing() {
    for value in ["nan", "NaN", "-1", "-inf", "abc"] {
        let stderr = refused(&["check", SPHERE, SPHERE, "--max-distance", value]);
        assert!(stderr.contains("--max-distance"), "{value}: {stderr}");
    }
    // Zero and no limit at all are fine.
    for value in ["0", "inf"] {
        let out = stdout(&["check", SPHERE, SPHERE, "--translate", "300,0,0", "--max-distance", value]);
        assert!(out.contains("intersecting: no"), "{value}: {out}");
    }
}

#[test]
fn check_says_a_directory_is_a_directory() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets");
    let stderr = refused(&["check", dir, SPHERE]);
    assert!(stderr.contains("is a directory"), "{stderr}");
    assert!(!stderr.contains("extension"), "{stderr}");
}

#[test]
fn check_says_a_missing_file_is_missing_whatever_its_extension() {
    let stderr = refused(&["check", "no-such-file.txt", SPHERE]);
    assert!(stderr.contains("no-such-file.txt") && stderr.contains("cannot read"), "{stderr}");
    assert!(!stderr.contains("unsupported mesh format"), "{stderr}");
}

#[test]
fn check_refuses_empty_files_and_unknown_extensions_with_the_file_name() {
    let dir = std::env::temp_dir().join(format!("kollide-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, message) in [
        ("empty.obj", "no triangles"),
        ("empty.stl", "empty"),
        ("empty.ply", "invalid PLY"),
        ("empty.off", "empty"),
        ("mesh.txt", "unsupported mesh format '.txt'"),
        ("mesh", "no extension"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, b"").unwrap();
        let path = path.to_str().unwrap();
        let stderr = refused(&["check", path, SPHERE]);
        assert!(stderr.contains(path) && stderr.contains(message), "{name}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_takes_negative_numbers_as_values() {
    // A mirror and a translation to the left, written as a new user would.
    let out = stdout(&["check", SPHERE, SPHERE, "--scale", "-1", "--translate", "-300,0,0"]);
    assert!(out.contains("intersecting: no") && out.contains("distance: "), "{out}");
}

#[test]
fn check_refuses_non_finite_or_malformed_vectors_at_parsing() {
    for (option, value) in [
        ("--scale", "nan"),
        ("--scale", "inf"),
        ("--scale", "1,2"),
        ("--shear", "0,nan,0"),
        ("--rotate", "inf,0,0"),
        ("--translate", "-inf,0,0"),
        ("--translate", ""),
    ] {
        let stderr = refused(&["check", SPHERE, SPHERE, option, value]);
        assert!(stderr.contains(option), "{option} {value}: {stderr}");
    }
}

#[test]
fn check_refuses_a_zero_sdf_resolution() {
    let stderr = refused(&["check", SPHERE, SPHERE, "--sdf", "0"]);
    assert!(stderr.contains("--sdf"), "{stderr}");
}

#[test]
fn demo_refuses_a_negative_seed_as_a_bad_value() {
    let stderr = refused(&["demo", "--seed", "-1"]);
    assert!(stderr.contains("invalid value '-1' for '--seed"), "{stderr}");
}
