//! `kollide check A B`: two mesh files, B placed in A's frame by an affine map; prints whether
//! they intersect, the intersecting triangle pairs and the contacts, or the distance, with
//! timings.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use glam::{Affine3A, EulerRot, Mat3, Quat, Vec3};
use indicatif::{ProgressBar, ProgressStyle};
use kollide::field::{GridField, PointFieldStats, SpatialSignature, first_point_inside};
use kollide::mesh::io::load;
use kollide::mesh::{MeshInstance, MeshMeshCache, MeshOverlap, TriMesh};

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Mesh A (OBJ, STL, PLY or OFF); the frame of every answer.
    pub a: PathBuf,
    /// Mesh B, placed in A's frame by the map below.
    pub b: PathBuf,
    /// Scale of B: one factor, or three (`x,y,z`) for a non-uniform scale (negative factors
    /// mirror).
    // `allow_hyphen_values`: `--scale -1` and `--translate -3,0,0` are values, not options.
    #[arg(long, value_parser = parse_vec3_or_scalar, default_value = "1", allow_hyphen_values = true)]
    pub scale: Vec3,
    /// Shear of B, applied after the scale: `xy,xz,yz` (x gains xy·y + xz·z, y gains yz·z).
    #[arg(long, value_parser = parse_vec3, default_value = "0,0,0", allow_hyphen_values = true)]
    pub shear: Vec3,
    /// Rotation of B in degrees about x, then y, then z.
    #[arg(long, value_parser = parse_vec3, default_value = "0,0,0", allow_hyphen_values = true)]
    pub rotate: Vec3,
    /// Translation of B: `x,y,z`.
    #[arg(long, value_parser = parse_vec3, default_value = "0,0,0", allow_hyphen_values = true)]
    pub translate: Vec3,
    /// When the meshes are apart, report their distance if it is at most this (default: the
    /// size of A's box; `inf` for no limit).
    #[arg(long, value_parser = parse_max_distance, allow_hyphen_values = true)]
    pub max_distance: Option<f32>,
    /// Also sample B into a signed-distance grid with this many cells along its longest side
    /// and test A's vertices against it (B must be closed).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub sdf: Option<u32>,
}

/// B's map into A's frame: `translate · rotate · shear · scale`.
pub fn placement(args: &CheckArgs) -> Affine3A {
    let r = args.rotate * (std::f32::consts::PI / 180.0);
    let rotation = Quat::from_euler(EulerRot::ZYX, r.z, r.y, r.x);
    let shear = Mat3::from_cols(
        Vec3::X,
        Vec3::new(args.shear.x, 1.0, 0.0),
        Vec3::new(args.shear.y, args.shear.z, 1.0),
    );
    let linear = Mat3::from_quat(rotation) * shear * Mat3::from_diagonal(args.scale);
    Affine3A::from_mat3_translation(linear, args.translate)
}

/// Contacts listed one per line; the rest are counted.
const MAX_PRINTED_CONTACTS: usize = 8;

pub fn run(args: &CheckArgs) -> Result<(), String> {
    let map = placement(args);
    let bar = progress_bar(4, "loading and building");
    let (a, a_time) = load_mesh(&args.a, &bar)?;
    let (b, b_time) = load_mesh(&args.b, &bar)?;
    bar.finish_and_clear();
    describe("A", &args.a, &a, a_time);
    describe("B", &args.b, &b, b_time);
    println!(
        "B in A's frame: scale {}, shear {}, rotate {}°, translate {}",
        args.scale, args.shear, args.rotate, args.translate
    );

    // A placed at the identity, so that the world is A's frame. The library's own rule decides
    // which placements it accepts (finite, and invertible in `f32` relative to the entries' size):
    // B's map is refused here, with the library's reason, rather than answered as "apart".
    let (a, b) = (Arc::new(a), Arc::new(b));
    let ia = MeshInstance::new(a.clone(), Affine3A::IDENTITY).map_err(|e| format!("A: {e}"))?;
    let ib = MeshInstance::new(b.clone(), map)
        .map_err(|e| format!("B's placement (scale, shear, rotate, translate) is refused: {e}"))?;
    let (overlap, t) = timed(|| ia.mesh_overlap(&ib, Some(&mut MeshMeshCache::new())));
    match overlap {
        Some(MeshOverlap::Triangles { a: ta, b: tb }) => {
            println!(
                "intersecting: yes, triangle {ta} of A meets triangle {tb} of B ({})",
                format_duration(t)
            );
        }
        Some(MeshOverlap::AInsideB { depth }) => {
            println!("intersecting: yes, A lies inside B, depth about {depth} ({})", format_duration(t));
        }
        Some(MeshOverlap::BInsideA { depth }) => {
            println!("intersecting: yes, B lies inside A, depth about {depth} ({})", format_duration(t));
        }
        None => println!("intersecting: no ({})", format_duration(t)),
    }
    if overlap.is_some() {
        if matches!(overlap, Some(MeshOverlap::Triangles { .. })) {
            let mut pairs = Vec::new();
            let ((), t) = timed(|| ia.intersecting_triangles(&ib, &mut pairs));
            println!("intersecting triangle pairs: {} ({})", pairs.len(), format_duration(t));
        }
        let mut contacts = Vec::new();
        let (regions, t) = timed(|| ia.mesh_contacts(&ib, &mut contacts));
        println!("contacts: {} in {regions} touching regions ({})", contacts.len(), format_duration(t));
        for c in contacts.iter().take(MAX_PRINTED_CONTACTS) {
            println!(
                "  region {}: point {}, normal {}, separation {}",
                c.region, c.point, c.normal, c.separation
            );
        }
        if contacts.len() > MAX_PRINTED_CONTACTS {
            println!("  … and {} more", contacts.len() - MAX_PRINTED_CONTACTS);
        }
    } else {
        let limit = args.max_distance.unwrap_or_else(|| a.bounds().size().max_element());
        let (distance, t) = timed(|| ia.mesh_distance(&ib, limit));
        match distance {
            Some(d) => println!(
                "distance: {} between {} on A (triangle {}) and {} on B (triangle {}) ({})",
                d.distance,
                d.point_a,
                d.triangle_a,
                d.point_b,
                d.triangle_b,
                format_duration(t)
            ),
            None => println!("distance: more than {limit} ({})", format_duration(t)),
        }
    }
    if let Some(cells) = args.sdf {
        check_field(&a, &b, &map, cells)?;
    }
    Ok(())
}

/// The point-set test: A's vertices against B's sampled field, pruned by B's spatial signature.
fn check_field(a: &TriMesh, b: &TriMesh, map: &Affine3A, cells: u32) -> Result<(), String> {
    let cell = b.bounds().size().max_element() / cells.max(1) as f32;
    let started = Instant::now();
    let bar = progress_bar(1, "sampling B's signed distance");
    let grid = GridField::from_mesh_with_progress(b, cell, |done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })
    .map_err(|e| format!("B's field: {e}"))?;
    bar.finish_and_clear();
    let signature = SpatialSignature::from_grid(&grid, 1).map_err(|e| format!("B's signature: {e}"))?;
    let [nx, ny, nz] = grid.dims();
    println!(
        "B's field: {nx}×{ny}×{nz} samples, {:.1} MB, error at most {} (B's units), built in {}",
        grid.memory_bytes() as f64 / 1e6,
        grid.interpolation_error(),
        format_duration(started.elapsed())
    );
    // A at the origin, B's field placed by the map.
    let mut stats = PointFieldStats::default();
    let (inside, t) = timed(|| {
        first_point_inside(a.vertices(), &Affine3A::IDENTITY, &grid, map, Some(&signature), &mut stats)
    });
    match inside {
        Some(i) => println!("A's vertex {i} is inside B's field ({})", format_duration(t)),
        None => println!("no vertex of A is inside B's field ({})", format_duration(t)),
    }
    println!("  the signature skipped {} vertices, {} were evaluated", stats.pruned, stats.evaluated);
    Ok(())
}

fn load_mesh(path: &Path, bar: &ProgressBar) -> Result<(TriMesh, Duration), String> {
    // Said before the extension is looked at: a missing file or a directory is not a format
    // problem.
    match std::fs::metadata(path) {
        Err(e) => return Err(format!("{}: cannot read the mesh file: {e}", path.display())),
        Ok(m) if m.is_dir() => return Err(format!("{} is a directory, not a mesh file", path.display())),
        Ok(_) => {}
    }
    bar.set_message(format!("loading {}", path.display()));
    let data = load(path).map_err(|e| format!("{}: {e}", path.display()))?;
    bar.inc(1);
    bar.set_message(format!("building the BVH of {}", path.display()));
    let started = Instant::now();
    let mesh = TriMesh::from_data(data).map_err(|e| format!("{}: {e}", path.display()))?;
    let built = started.elapsed();
    bar.inc(1);
    Ok((mesh, built))
}

fn describe(name: &str, path: &Path, mesh: &TriMesh, built: Duration) {
    println!(
        "{name}: {} ({} triangles, {}, box {} to {}, BVH built in {})",
        path.display(),
        mesh.triangle_count(),
        if mesh.is_solid() { "closed" } else { "open" },
        mesh.bounds().min,
        mesh.bounds().max,
        format_duration(built)
    );
}

/// A bar on stderr (hidden when stderr is not a terminal).
fn progress_bar(steps: u64, message: &'static str) -> ProgressBar {
    let bar = ProgressBar::new(steps);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let started = Instant::now();
    let value = f();
    (value, started.elapsed())
}

fn format_duration(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let parts: Vec<f32> = s
        .split(',')
        .map(|p| match p.trim().parse::<f32>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(format!("`{p}` is not a finite number")),
            Err(e) => Err(format!("`{p}`: {e}")),
        })
        .collect::<Result<_, _>>()?;
    match parts[..] {
        [x, y, z] => Ok(Vec3::new(x, y, z)),
        _ => Err(format!("expected three comma-separated numbers, got `{s}`")),
    }
}

/// A distance limit: zero or more (`inf` for none); NaN and negative limits are refused.
fn parse_max_distance(s: &str) -> Result<f32, String> {
    let d: f32 = s.trim().parse().map_err(|e| format!("`{s}`: {e}"))?;
    if d >= 0.0 { Ok(d) } else { Err(format!("expected a distance of zero or more (or `inf`), got `{s}`")) }
}

fn parse_vec3_or_scalar(s: &str) -> Result<Vec3, String> {
    if s.contains(',') { parse_vec3(s) } else { parse_vec3(&format!("{s},{s},{s}")) }
}
