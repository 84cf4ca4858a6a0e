//! Procedural triangle meshes: torus, icosphere, flat grid and concave asteroids.
//!
//! Every closed mesh here is wound outward: for a triangle `[a, b, c]`, `(b - a) × (c - a)`
//! points out of the solid, so its signed volume is positive. All generators are deterministic
//! (same arguments, same bits).

use crate::random::{rng, unit3};
use glam::{DVec3, Vec3};
use kollide::mesh::io::MeshData;
use rand::Rng;
use std::collections::HashMap;
use std::f32::consts::TAU;

/// The golden ratio `(1 + √5) / 2`.
const PHI: f64 = 1.618_033_988_749_895;

/// The 12 vertices of a regular icosahedron, `(0, ±1, ±φ)` and its cyclic permutations (not
/// normalized: at distance `√(1 + φ²)` from the origin).
pub const ICOSAHEDRON_VERTICES: [[f64; 3]; 12] = [
    [-1.0, PHI, 0.0],
    [1.0, PHI, 0.0],
    [-1.0, -PHI, 0.0],
    [1.0, -PHI, 0.0],
    [0.0, -1.0, PHI],
    [0.0, 1.0, PHI],
    [0.0, -1.0, -PHI],
    [0.0, 1.0, -PHI],
    [PHI, 0.0, -1.0],
    [PHI, 0.0, 1.0],
    [-PHI, 0.0, -1.0],
    [-PHI, 0.0, 1.0],
];

/// The 20 faces of [`ICOSAHEDRON_VERTICES`], wound outward.
pub const ICOSAHEDRON_FACES: [[usize; 3]; 20] = [
    [0, 11, 5],
    [0, 5, 1],
    [0, 1, 7],
    [0, 7, 10],
    [0, 10, 11],
    [1, 5, 9],
    [5, 11, 4],
    [11, 10, 2],
    [10, 7, 6],
    [7, 1, 8],
    [3, 9, 4],
    [3, 4, 2],
    [3, 2, 6],
    [3, 6, 8],
    [3, 8, 9],
    [4, 9, 5],
    [2, 4, 11],
    [6, 2, 10],
    [8, 6, 7],
    [9, 8, 1],
];

/// A torus around the z axis through the origin: tube centre circle of radius `major`, tube
/// radius `minor`; `rings` segments around z and `sides` around the tube (each clamped to at
/// least 3), giving `rings · sides` vertices and `2 · rings · sides` triangles.
///
/// Closed and outward-wound. It is embedded (no self-intersection) only when
/// `0 < minor < major`; other radii are not checked and give a self-intersecting surface.
pub fn torus(major: f32, minor: f32, rings: usize, sides: usize) -> MeshData {
    let (rings, sides) = (rings.max(3), sides.max(3));
    let mut vertices = Vec::with_capacity(rings * sides);
    for i in 0..rings {
        let (st, ct) = (TAU * i as f32 / rings as f32).sin_cos();
        for j in 0..sides {
            let (sp, cp) = (TAU * j as f32 / sides as f32).sin_cos();
            let r = major + minor * cp;
            vertices.push(Vec3::new(r * ct, r * st, minor * sp));
        }
    }
    let id = |i: usize, j: usize| ((i % rings) * sides + j % sides) as u32;
    let mut triangles = Vec::with_capacity(2 * rings * sides);
    for i in 0..rings {
        for j in 0..sides {
            // ∂p/∂θ × ∂p/∂φ points away from the tube centre, so (i,j) → (i+1,j) → (i+1,j+1)
            // is counter-clockwise seen from outside.
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    MeshData { vertices, triangles }
}

/// A unit sphere: the icosahedron with each face split into `4^subdivisions` triangles on a
/// flat lattice, projected onto the sphere. `20 · 4^s` triangles, `10 · 4^s + 2` vertices;
/// `subdivisions` is clamped to at most 9 (5.2 million triangles).
pub fn icosphere(subdivisions: u32) -> MeshData {
    geodesic_sphere(1 << subdivisions.min(9))
}

/// The unit cube centred at the origin (corners at ±0.5), 12 triangles wound outward: a closed
/// mesh small enough for brute-force references.
pub fn cube() -> MeshData {
    let vertices = (0..8)
        .map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32) - 0.5)
        .collect();
    let triangles = vec![
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ];
    MeshData { vertices, triangles }
}

/// A flat open square grid in the plane z = 0 covering `[-1, 1]²`: `(n + 1)²` vertices and
/// `2 · n²` triangles (n clamped to at least 1), counter-clockwise seen from +z.
pub fn grid(n: usize) -> MeshData {
    let n = n.max(1);
    let step = 2.0 / n as f32;
    let mut vertices = Vec::with_capacity((n + 1) * (n + 1));
    for j in 0..=n {
        for i in 0..=n {
            vertices.push(Vec3::new(-1.0 + step * i as f32, -1.0 + step * j as f32, 0.0));
        }
    }
    let id = |i: usize, j: usize| (j * (n + 1) + i) as u32;
    let mut triangles = Vec::with_capacity(2 * n * n);
    for j in 0..n {
        for i in 0..n {
            triangles.push([id(i, j), id(i + 1, j), id(i + 1, j + 1)]);
            triangles.push([id(i, j), id(i + 1, j + 1), id(i, j + 1)]);
        }
    }
    MeshData { vertices, triangles }
}

/// A concave rock with craters and overhangs, 2 to 3 units across around the origin, closed, 2-manifold, not
/// self-intersecting and outward-wound, with roughly `target_triangles` triangles (`20 · f²`
/// for the nearest lattice frequency `f`, clamped to `[3, 300]`, so 180 to 1.8 million).
///
/// Construction, each step keeping the surface embedded:
/// 1. a geodesic unit sphere (icosahedron faces split on a flat lattice of frequency `f`);
/// 2. each vertex pushed along its direction `u` to radius `r(u) > 0`: fractal value noise plus
///    crater bowls with raised rims. The surface stays star-shaped from the origin, so it is
///    embedded: every triangle lies in the cone of its spherical triangle, and scaling a
///    triangle's corners by positive radii keeps `det(a, b, c) > 0`;
/// 3. a random axis-aligned stretch (a linear bijection);
/// 4. a smooth domain warp `p → p + w(p)` with `w(p) = Σ aᵢ sin(kᵢ·p + φᵢ) eᵢ`, `eᵢ ⊥ kᵢ` unit.
///    Its Jacobian is `Σ aᵢ cos(…) eᵢ kᵢᵀ`, of norm at most `L = Σ aᵢ|kᵢ| = 0.9 < 1`, so
///    `|w(p) - w(q)| ≤ L|p - q| < |p - q|` and the map is injective with positive Jacobian
///    determinant (orientation kept). It shears the steep crater walls past vertical, which
///    makes overhangs: rays from the centre that cross the surface three times.
///
/// Same `seed` and size, same mesh, bit for bit.
pub fn asteroid(seed: u64, target_triangles: usize) -> MeshData {
    let frequency = ((target_triangles as f64 / 20.0).sqrt().round() as usize).clamp(3, 300);
    let mut mesh = geodesic_sphere(frequency);
    let mut rng = rng(seed);

    let noise_seed: u32 = rng.random();
    let noise_offset = Vec3::new(rng.random(), rng.random(), rng.random()) * 100.0;
    let crater_count = rng.random_range(14..22);
    let craters: Vec<Crater> = (0..crater_count)
        .map(|i| {
            // One large, deep crater, then many small ones and few large ones (radius in
            // radians of arc).
            let radius =
                if i == 0 { rng.random_range(0.38..0.46) } else { 0.14 + 0.34 * rng.random::<f32>().powi(2) };
            let depth = if i == 0 { rng.random_range(0.75..0.85) } else { rng.random_range(0.55..0.85) };
            Crater {
                center: unit3(&mut rng),
                radius,
                depth: radius * depth,
                rim: radius * rng.random_range(0.08..0.16),
            }
        })
        .collect();
    let stretch =
        Vec3::new(rng.random_range(1.0..1.35), rng.random_range(0.85..1.1), rng.random_range(0.7..0.9));

    // Warp terms: wave vectors of length 3..6 (wavelengths of 1 to 2 units), equal shares of L.
    // The first term runs along the first crater's axis with its steepest shear at the crater's
    // mid-depth, so that crater's wall is sheared past vertical on one side: at least one
    // overhang whatever the seed.
    const LIPSCHITZ: f32 = 0.9;
    const TERMS: usize = 2;
    let warp: Vec<(Vec3, Vec3, f32, f32)> = (0..TERMS)
        .map(|i| {
            let axis = if i == 0 { (craters[0].center * stretch).normalize() } else { unit3(&mut rng) };
            let k = axis * rng.random_range(3.0..6.0);
            let (e1, e2) = axis.any_orthonormal_pair();
            let (s, c) = rng.random_range(0.0..TAU).sin_cos();
            let amplitude = LIPSCHITZ / (TERMS as f32 * k.length());
            let phase = if i == 0 {
                -k.dot(craters[0].center * (1.0 - 0.5 * craters[0].depth) * stretch)
            } else {
                rng.random_range(0.0..TAU)
            };
            (k, e1 * c + e2 * s, amplitude, phase)
        })
        .collect();

    for p in &mut mesh.vertices {
        let u = *p;
        let mut r = 1.0 + 0.16 * fbm(noise_seed, u * 1.6 + noise_offset, 5);
        for crater in &craters {
            r += crater.height(u);
        }
        let q = u * r.max(0.35) * stretch;
        let mut warped = q;
        for &(k, e, amplitude, phase) in &warp {
            warped += e * (amplitude * (k.dot(q) + phase).sin());
        }
        *p = warped;
    }
    mesh
}

/// A crater centred on the unit direction `center`, of angular radius `radius`.
struct Crater {
    center: Vec3,
    radius: f32,
    depth: f32,
    rim: f32,
}

impl Crater {
    /// Radial offset at unit direction `u`: a bowl `-depth · (1 - x⁶)` for `x = angle / radius
    /// < 1` (flat floor, steep walls) plus a Gaussian rim ridge `rim · exp(-((x - 1) / 0.3)²)`.
    fn height(&self, u: Vec3) -> f32 {
        let x = u.dot(self.center).clamp(-1.0, 1.0).acos() / self.radius;
        if x > 2.5 {
            return 0.0;
        }
        let bowl = if x < 1.0 { -self.depth * (1.0 - x.powi(6)) } else { 0.0 };
        let t = (x - 1.0) / 0.3;
        bowl + self.rim * (-t * t).exp()
    }
}

/// Fractal value noise: `octaves` octaves, frequency doubling and amplitude halving, in about
/// `[-1, 1]`.
fn fbm(seed: u32, p: Vec3, octaves: u32) -> f32 {
    let (mut sum, mut amplitude, mut norm, mut q) = (0.0, 1.0, 0.0, p);
    for octave in 0..octaves {
        sum += amplitude * value_noise(seed.wrapping_add(octave), q);
        norm += amplitude;
        amplitude *= 0.5;
        q *= 2.0;
    }
    sum / norm
}

/// Value noise: random values in `[-1, 1]` on the integer lattice, blended with the quintic fade
/// `6t⁵ - 15t⁴ + 10t³` (C² continuous).
fn value_noise(seed: u32, p: Vec3) -> f32 {
    let cell = p.floor();
    let f = p - cell;
    let fade = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    let (x, y, z) = (cell.x as i32, cell.y as i32, cell.z as i32);
    let corner = |dx: i32, dy: i32, dz: i32| lattice_value(seed, x + dx, y + dy, z + dz);
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let x00 = lerp(corner(0, 0, 0), corner(1, 0, 0), fade.x);
    let x10 = lerp(corner(0, 1, 0), corner(1, 1, 0), fade.x);
    let x01 = lerp(corner(0, 0, 1), corner(1, 0, 1), fade.x);
    let x11 = lerp(corner(0, 1, 1), corner(1, 1, 1), fade.x);
    lerp(lerp(x00, x10, fade.y), lerp(x01, x11, fade.y), fade.z)
}

/// A hash of a lattice point mapped to `[-1, 1]` (multiply-xorshift mixing).
fn lattice_value(seed: u32, x: i32, y: i32, z: i32) -> f32 {
    let mut h = seed
        ^ (x as u32).wrapping_mul(0x8da6_b343)
        ^ (y as u32).wrapping_mul(0xd816_3841)
        ^ (z as u32).wrapping_mul(0xcb1a_b31f);
    h = (h ^ (h >> 16)).wrapping_mul(0x7feb_352d);
    h = (h ^ (h >> 15)).wrapping_mul(0x846c_a68b);
    h ^= h >> 16;
    (h >> 8) as f32 / (1u32 << 23) as f32 - 1.0
}

/// The icosahedron split on a flat lattice of the given frequency and projected to the unit
/// sphere: `20 · frequency²` triangles, outward-wound.
fn geodesic_sphere(frequency: usize) -> MeshData {
    let n = frequency.max(1);
    let ico = ICOSAHEDRON_VERTICES.map(|v| DVec3::from(v).as_vec3());

    // A lattice point is Σ wᵢ·Vᵢ / n over the face's corners. Points on shared edges and corners
    // are keyed by their weights sorted by corner index, so neighbouring faces find the same
    // vertex and compute bit-identical positions.
    let mut ids: HashMap<[(usize, usize); 3], u32> = HashMap::new();
    let mut vertices = Vec::with_capacity(10 * n * n + 2);
    let mut triangles = Vec::with_capacity(20 * n * n);
    for face in ICOSAHEDRON_FACES {
        let [a, b, c] = face;
        let mut id = |i: usize, j: usize| -> u32 {
            let mut key =
                [(a, n - i - j), (b, i), (c, j)].map(|(v, w)| if w == 0 { (usize::MAX, 0) } else { (v, w) });
            key.sort_unstable();
            *ids.entry(key).or_insert_with(|| {
                let p =
                    key.iter().filter(|(_, w)| *w > 0).fold(Vec3::ZERO, |s, &(v, w)| s + ico[v] * w as f32);
                vertices.push(p.normalize());
                (vertices.len() - 1) as u32
            })
        };
        for j in 0..n {
            for i in 0..n - j {
                // Steps along (B - A) and (C - A): (B - A) × (C - A) points outward for these
                // faces, and both the "up" and "down" lattice triangles keep that order.
                triangles.push([id(i, j), id(i + 1, j), id(i, j + 1)]);
                if i + j + 1 < n {
                    triangles.push([id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)]);
                }
            }
        }
    }
    MeshData { vertices, triangles }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icosahedron_faces_are_outward() {
        let m = geodesic_sphere(1);
        assert_eq!((m.vertices.len(), m.triangles.len()), (12, 20));
        for t in &m.triangles {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0, "{t:?}");
        }
    }

    #[test]
    fn noise_is_bounded_and_continuous() {
        for i in 0..1000 {
            let p = Vec3::new(i as f32 * 0.37, i as f32 * -0.11, i as f32 * 0.05);
            let v = value_noise(7, p);
            assert!((-1.0..=1.0).contains(&v));
            let w = value_noise(7, p + Vec3::splat(1e-4));
            assert!((v - w).abs() < 1e-2);
        }
        assert_eq!(value_noise(3, Vec3::new(2.0, -4.0, 5.0)), lattice_value(3, 2, -4, 5));
    }

    #[test]
    fn crater_profile() {
        let c = Crater { center: Vec3::Z, radius: 0.3, depth: 0.2, rim: 0.03 };
        assert!((c.height(Vec3::Z) - (-0.2 + 0.03 * (-1.0f32 / 0.09).exp())).abs() < 1e-6);
        assert!((c.height(Vec3::new(0.3f32.sin(), 0.0, 0.3f32.cos())) - 0.03).abs() < 1e-4);
        assert_eq!(c.height(-Vec3::Z), 0.0);
    }
}
