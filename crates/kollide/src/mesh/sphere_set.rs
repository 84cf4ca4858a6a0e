//! Sphere sets: a mesh stood in for by a few balls (a few dozen around a character).
//!
//! A [`SphereSet`] is a list of solid balls in its own frame. [`SphereSet::cover_mesh`] builds one
//! that covers a mesh's surface: every triangle is assigned to one ball that contains its three
//! corners, hence the whole triangle. The set is tested against triangle meshes and against other
//! sets under affine maps:
//!
//! - against a mesh, exactly: a ball under an affine map is an ellipsoid, and the test runs in
//!   the ball's frame, where it is a ball again and the mesh's triangles, mapped back, are still
//!   triangles (affine maps keep triangles triangles);
//! - against another set, exactly when the relative map is a similarity (rotation or reflection,
//!   uniform scale, translation) and conservatively otherwise: each mapped ball of the other set
//!   is replaced by the ball around its ellipsoid (radius times the map's largest stretch), so an
//!   overlap may be reported for ellipsoids that miss by less than `r · (σ_max − σ_min)`, and a
//!   true overlap is never missed.

use glam::{Affine3A, Vec3, Vec3A};

use super::trimesh::TriMesh;
use crate::bounds::{Aabb3, Sphere};
use crate::math::{is_similarity, largest_stretch};
use crate::primitive::test_sphere_triangle;

/// Balls in one frame, with the ball around all of them for an early out.
#[derive(Clone, Debug, PartialEq)]
pub struct SphereSet {
    spheres: Vec<Sphere>,
    bounds: Sphere,
}

/// Why a sphere set could not be made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SphereSetError {
    /// No ball given, or a cover asked for zero balls.
    Empty,
    /// The ball at this index has a non-finite center or a radius that is negative or not finite.
    InvalidSphere(usize),
}

impl std::fmt::Display for SphereSetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => write!(f, "a sphere set needs at least one ball"),
            Self::InvalidSphere(i) => write!(f, "ball {i} has a non-finite center or an invalid radius"),
        }
    }
}

impl std::error::Error for SphereSetError {}

/// Volumes of a cover against its mesh, estimated by sampling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoverVolume {
    /// The mesh's enclosed volume, exact (divergence theorem over the triangles).
    pub mesh: f32,
    /// The volume of the union of the balls (sampled).
    pub union: f32,
    /// The volume inside some ball and outside the mesh (sampled): what the stand-in adds.
    pub excess: f32,
}

/// Lloyd iterations of the triangle clustering in [`SphereSet::cover_mesh`].
const COVER_ITERATIONS: usize = 10;

impl SphereSet {
    /// A set of the given balls. Each must have a finite center and a finite radius `≥ 0`.
    pub fn new(spheres: Vec<Sphere>) -> Result<Self, SphereSetError> {
        if spheres.is_empty() {
            return Err(SphereSetError::Empty);
        }
        if let Some(i) =
            spheres.iter().position(|s| !(s.center.is_finite() && s.radius >= 0.0 && s.radius.is_finite()))
        {
            return Err(SphereSetError::InvalidSphere(i));
        }
        let bounds = spheres[1..].iter().fold(spheres[0], |acc, s| acc.merge(s));
        Ok(Self { spheres, bounds })
    }

    /// At most `count` balls covering `mesh`'s surface: every point of every triangle (degenerate
    /// ones included) lies in some ball, with radii rounded up so that f32 point tests agree.
    ///
    /// Method: the triangles are clustered by area-weighted k-means on their centroids (seeds by
    /// farthest-point sampling, so the result is deterministic), and each cluster gets the
    /// minimal ball of its triangles' corners. For a closed mesh each ball is then moved inward
    /// against the cluster's mean normal when that helps: among depths `0, ρ/2, ρ, 2ρ` (`ρ` the
    /// first radius) it keeps the one that minimizes how far the ball reaches beyond the mesh's
    /// inscribed ball at its center (radius minus the center's depth), which cuts the part of a
    /// flat patch's ball that sticks out. The cover holds the surface only: a closed mesh's
    /// deep interior may lie outside every ball (see [`SphereSet::cover_volume`]).
    pub fn cover_mesh(mesh: &TriMesh, count: usize) -> Result<Self, SphereSetError> {
        // A TriMesh has at least one triangle, so a positive count gives at least one ball.
        if count == 0 {
            return Err(SphereSetError::Empty);
        }
        let corners: Vec<[Vec3; 3]> =
            mesh.triangles().iter().map(|t| t.map(|i| mesh.vertices()[i as usize])).collect();
        let cluster = cluster_triangles(&corners, count.min(corners.len()));
        let mut spheres = Vec::with_capacity(count);
        let mut points = Vec::new();
        for members in cluster {
            if members.is_empty() {
                continue;
            }
            points.clear();
            points.extend(members.iter().flat_map(|&t| corners[t]));
            let Some(ball) = Sphere::from_points(&points) else { continue };
            let ball =
                if mesh.is_solid() { push_inward(mesh, &points, &members, &corners, ball) } else { ball };
            spheres.push(round_up(ball));
        }
        Self::new(spheres)
    }

    /// The balls.
    pub fn spheres(&self) -> &[Sphere] {
        &self.spheres
    }

    /// A ball around every ball of the set.
    pub fn bounding_sphere(&self) -> Sphere {
        self.bounds
    }

    /// The box of the balls.
    pub fn aabb(&self) -> Aabb3 {
        self.spheres
            .iter()
            .fold(Aabb3::EMPTY, |acc, s| acc.merge(&Aabb3::new(s.center - s.radius, s.center + s.radius)))
    }

    /// How much the set adds to a closed mesh: the mesh's volume, and the union's volume and its
    /// part outside the mesh, sampled at the centers of `resolution³` cells over the box of the
    /// balls and the mesh (error about one cell layer over the surfaces). `None` if the mesh is
    /// not solid or `resolution` is 0.
    pub fn cover_volume(&self, mesh: &TriMesh, resolution: usize) -> Option<CoverVolume> {
        if !mesh.is_solid() || resolution == 0 {
            return None;
        }
        let region = self.aabb().merge(&mesh.bounds());
        let cell = region.size() / resolution as f32;
        let (mut union, mut excess) = (0usize, 0usize);
        for k in 0..resolution {
            for j in 0..resolution {
                for i in 0..resolution {
                    let p = region.min + (Vec3::new(i as f32, j as f32, k as f32) + 0.5) * cell;
                    if self.spheres.iter().any(|s| s.contains_point(p)) {
                        union += 1;
                        excess += usize::from(mesh.contains_point(p) == Some(false));
                    }
                }
            }
        }
        let cell_volume = cell.x * cell.y * cell.z;
        Some(CoverVolume {
            mesh: enclosed_volume(mesh),
            union: union as f32 * cell_volume,
            excess: excess as f32 * cell_volume,
        })
    }

    /// True if the balls, placed by `set_to_world`, touch the mesh placed by `mesh_to_world`;
    /// exact (see the module). For a solid mesh a ball inside it counts (solid semantics); for an
    /// open mesh only touching its triangles does. `false` for a placement that is not invertible
    /// or not finite.
    pub fn intersects_mesh(&self, set_to_world: &Affine3A, mesh: &TriMesh, mesh_to_world: &Affine3A) -> bool {
        let self_in_mesh = &(mesh_to_world.inverse() * *set_to_world);
        let to_self = self_in_mesh.inverse();
        if !(self_in_mesh.is_finite() && to_self.is_finite()) {
            return false;
        }
        let linear = self_in_mesh.matrix3;
        // Extent of a unit ball's image along mesh axis i: the length of row i of the map.
        let rows = linear.transpose();
        let reach = Vec3::new(rows.x_axis.length(), rows.y_axis.length(), rows.z_axis.length());
        let image_box = |s: &Sphere| {
            let center = self_in_mesh.transform_point3(s.center);
            Aabb3::new(center - reach * s.radius, center + reach * s.radius)
        };
        let mesh_box = mesh.bounds();
        if !image_box(&self.bounds).overlaps(&mesh_box) {
            return false;
        }
        let similarity = is_similarity(self_in_mesh);
        for s in self.spheres.iter().filter(|s| image_box(s).overlaps(&mesh_box)) {
            let touches = match similarity {
                // The image is a ball (to 1e-5 relative, see `is_similarity`): the mesh's own
                // ball query, with its tighter node test.
                Some(scale) => mesh.sphere_touches_surface(&Sphere::new(
                    self_in_mesh.transform_point3(s.center),
                    s.radius * scale,
                )),
                // An ellipsoid: nodes culled by its box, triangles mapped into the ball's frame.
                None => {
                    let image = image_box(s);
                    !mesh.bvh().traverse(
                        |node| node.overlap_mask(image.min, image.max),
                        |mut range| {
                            !range.any(|k| {
                                let corners = mesh.slot_corners(k).map(|c| to_self.transform_point3(c));
                                test_sphere_triangle(s, &corners)
                            })
                        },
                    )
                }
            };
            if touches {
                return true;
            }
        }
        // No ball touches the surface: each is inside a solid mesh entirely or not at all.
        mesh.is_solid()
            && self
                .spheres
                .iter()
                .any(|s| mesh.contains_point(self_in_mesh.transform_point3(s.center)) == Some(true))
    }

    /// True if the two sets' balls overlap, this set placed by `set_to_world` and `other` by
    /// `other_to_world`: exact when the relative map is a similarity, conservative otherwise (see
    /// the module). `false` for a placement that is not finite or not invertible (either one, so
    /// that swapping the sets gives the same answer).
    pub fn intersects_set(
        &self,
        set_to_world: &Affine3A,
        other: &SphereSet,
        other_to_world: &Affine3A,
    ) -> bool {
        let other_in_self = &(set_to_world.inverse() * *other_to_world);
        let invertible = |m: &Affine3A| m.matrix3.determinant().abs() > 0.0;
        if !(set_to_world.is_finite() && other_in_self.is_finite() && invertible(other_to_world)) {
            return false;
        }
        let stretch = largest_stretch(&other_in_self.matrix3);
        let place = |s: &Sphere| Sphere::new(other_in_self.transform_point3(s.center), s.radius * stretch);
        if !self.bounds.overlaps(&place(&other.bounds)) {
            return false;
        }
        other
            .spheres
            .iter()
            .map(place)
            .any(|b| b.overlaps(&self.bounds) && self.spheres.iter().any(|a| a.overlaps(&b)))
    }
}

/// Area-weighted k-means over the triangles' centroids: `count` groups of triangle indices.
fn cluster_triangles(corners: &[[Vec3; 3]], count: usize) -> Vec<Vec<usize>> {
    let centroids: Vec<Vec3A> = corners.iter().map(|c| Vec3A::from(c[0] + c[1] + c[2]) / 3.0).collect();
    // Degenerate triangles still need a group; a tiny weight keeps them from moving centers.
    let weights: Vec<f32> =
        corners.iter().map(|c| (c[1] - c[0]).cross(c[2] - c[0]).length() * 0.5 + 1e-30).collect();

    // Farthest-point seeds: start from the centroid farthest from the mean.
    let mean = centroids.iter().copied().sum::<Vec3A>() / centroids.len() as f32;
    let farthest = |distance: &[f32]| {
        distance.iter().enumerate().fold(0, |best, (i, &d)| if d > distance[best] { i } else { best })
    };
    let mut distance: Vec<f32> = centroids.iter().map(|c| c.distance_squared(mean)).collect();
    let mut centers = Vec::with_capacity(count);
    while centers.len() < count {
        let next = centroids[farthest(&distance)];
        centers.push(next);
        for (d, c) in distance.iter_mut().zip(&centroids) {
            *d = d.min(c.distance_squared(next));
        }
    }

    let mut assignment = vec![0usize; centroids.len()];
    for _ in 0..COVER_ITERATIONS {
        for (a, c) in assignment.iter_mut().zip(&centroids) {
            *a = nearest(&centers, *c);
        }
        let mut sums = vec![(Vec3A::ZERO, 0.0f32); count];
        for ((&a, c), &w) in assignment.iter().zip(&centroids).zip(&weights) {
            sums[a].0 += *c * w;
            sums[a].1 += w;
        }
        for (center, (sum, weight)) in centers.iter_mut().zip(sums) {
            if weight > 0.0 {
                *center = sum / weight;
            }
        }
    }
    let mut groups = vec![Vec::new(); count];
    for (t, c) in centroids.iter().enumerate() {
        groups[nearest(&centers, *c)].push(t);
    }
    groups
}

/// Index of the center nearest to `p` (the first of equals).
fn nearest(centers: &[Vec3A], p: Vec3A) -> usize {
    let mut best = (0, f32::INFINITY);
    for (i, c) in centers.iter().enumerate() {
        let d = c.distance_squared(p);
        if d < best.1 {
            best = (i, d);
        }
    }
    best.0
}

/// `ball` (the minimal ball of `points`, the corners of the triangles `members`) moved inward
/// against the triangles' mean normal to the depth that least exceeds the mesh there; see
/// [`SphereSet::cover_mesh`]. The radius always covers every point.
fn push_inward(
    mesh: &TriMesh,
    points: &[Vec3],
    members: &[usize],
    corners: &[[Vec3; 3]],
    ball: Sphere,
) -> Sphere {
    // Area-weighted outward normal (counter-clockwise triangles face outward).
    let normal = members.iter().map(|&t| {
        let c = corners[t];
        (c[1] - c[0]).cross(c[2] - c[0])
    });
    let Some(inward) = (-normal.sum::<Vec3>()).try_normalize() else { return ball };
    let score = |s: &Sphere| s.radius + mesh.signed_distance(s.center).unwrap_or(f32::INFINITY);
    let mut best = (score(&ball), ball);
    for depth in [0.5, 1.0, 2.0] {
        let center = ball.center + inward * (ball.radius * depth);
        let radius = points.iter().map(|p| p.distance(center)).fold(0.0f32, f32::max);
        let moved = Sphere::new(center, radius);
        let s = score(&moved);
        if s < best.0 {
            best = (s, moved);
        }
    }
    best.1
}

/// `ball` with its radius raised by a relative `1e-6` of its size and position, so that points
/// within it by exact arithmetic pass the f32 [`Sphere::contains_point`].
fn round_up(ball: Sphere) -> Sphere {
    let scale = ball.radius + ball.center.abs().max_element();
    Sphere::new(ball.center, ball.radius + 1e-6 * scale)
}

/// The volume a closed, outward-oriented mesh encloses: `Σ (a · (b × c)) / 6` over its
/// triangles, in f64 and relative to the box center to limit cancellation.
fn enclosed_volume(mesh: &TriMesh) -> f32 {
    let origin = mesh.bounds().center().as_dvec3();
    let sum: f64 = mesh
        .triangles()
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| mesh.vertices()[i as usize].as_dvec3() - origin);
            a.dot(b.cross(c))
        })
        .sum();
    (sum / 6.0) as f32
}
