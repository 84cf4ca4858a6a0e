//! The pair queries a world runs every step, with a per-pair memory of the last answer
//! (temporal coherence): the same answers as [`intersects`](super::intersects) and
//! [`contact_manifolds`](super::contact_manifolds), usually cheaper when the pair moved little.

use glam::Affine3A;

use super::pair::{checked, convex_pair_error, intersects_placed};
use super::{PartManifold, QueryError, Shape};
use crate::mesh::MeshMeshCache;
use crate::narrow::{self, ContactManifold, GjkCache};

/// Caller-owned memory of one pair of shapes between queries: the GJK warm start of two convex
/// shapes, the last overlap witness or separating plane of two meshes. Any content is valid for
/// any pair: a stale or foreign cache costs time, and changes no answer except for two convex
/// shapes within rounding of touching (about `1e-5` of their size apart or deep), where GJK
/// started elsewhere may stop on the other side; mesh answers are exactly the uncached ones. A
/// default cache is empty.
#[derive(Clone, Copy, Debug, Default)]
pub struct PairCache {
    gjk: GjkCache,
    meshes: MeshMeshCache,
}

impl PairCache {
    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// [`intersects`](super::intersects) with a warm start: two convex shapes start GJK from the
/// cached directions, two meshes first re-check the cached witness of their last overlap.
pub fn intersects_cached(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
    cache: &mut PairCache,
) -> Result<bool, QueryError> {
    match (a, b) {
        (Shape::Convex(x), Shape::Convex(y)) => {
            narrow::intersects(x, a_to_world, y, b_to_world, &mut cache.gjk)
                .map_err(|e| convex_pair_error(e, a, a_to_world, b, b_to_world))
        }
        (Shape::Mesh(x), Shape::Mesh(y)) => {
            checked(a, a_to_world, b, b_to_world)?;
            // In A's mesh space, as the uncached query (the check made A's placement invertible).
            Ok(x.intersects_mesh(y, &(a_to_world.inverse() * *b_to_world), Some(&mut cache.meshes)))
        }
        _ => {
            let (a, b) = checked(a, a_to_world, b, b_to_world)?;
            intersects_placed(&a, &b)
        }
    }
}

/// [`contact_manifolds`](super::contact_manifolds) with a warm start for two convex shapes.
pub fn contact_manifolds_cached(
    a: &Shape,
    a_to_world: &Affine3A,
    b: &Shape,
    b_to_world: &Affine3A,
    prediction: f32,
    cache: &mut PairCache,
    out: &mut Vec<PartManifold>,
) -> Result<(), QueryError> {
    let (Shape::Convex(x), Shape::Convex(y)) = (a, b) else {
        return super::contact_manifolds(a, a_to_world, b, b_to_world, prediction, out);
    };
    out.clear();
    if prediction.is_nan() {
        return Err(QueryError::NonFiniteArgument("prediction"));
    }
    let mut manifold = ContactManifold::default();
    narrow::contact_manifold(
        x,
        a_to_world,
        y,
        b_to_world,
        prediction.max(0.0),
        &mut cache.gjk,
        &mut manifold,
    )
    .map_err(|e| convex_pair_error(e, a, a_to_world, b, b_to_world))?;
    if !manifold.is_empty() {
        out.push(PartManifold { part_a: 0, part_b: 0, manifold });
    }
    Ok(())
}
