//! Scene queries: one traversal over the world's broad phase that asks a two-level visitor
//! (the seeds' obstruction test): first whether to test a collider at all, then what to do with
//! each exact hit. Ray and shape casts visit candidates near to far (not sorted), through the
//! broad phase's [`BroadPhase::cast_box`] on the boxes it holds (for a collider moved with a
//! velocity, the box that also covers its look-ahead); clipping to a hit prunes every collider
//! whose box lies beyond it, inside the broad phase's own descent.
//!
//! The convenience forms (closest, any and all ray hits, shape casts, overlaps, points,
//! distances) are visitors on top. A collider whose kind has no algorithm for the query (a
//! field in a shape cast or a distance query) is skipped. Bad query arguments are an error
//! before anything is visited.

use std::cell::Cell;

use super::{Collider, ColliderHandle, Dim, QueryFilter, World, WorldError};
use crate::bounds::Bounds;
use crate::broad::{BroadBounds, BroadPhase};
use crate::query::QueryError;

/// What to do with a candidate collider (its box meets the query).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColliderVisit {
    /// Do not test it.
    Skip,
    /// Run the exact test.
    Test,
    /// End the query.
    Stop,
}

/// What to do after an exact hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitVisit {
    /// Go on with the same reach.
    Continue,
    /// Go on, but only for hits before this one (ray and shape casts; elsewhere as `Continue`).
    Clip,
    /// End the query.
    Stop,
}

/// The two levels of a scene query's visitor. Closures
/// `FnMut(ColliderHandle, &Collider<D>, &H) -> HitVisit` are visitors that test every collider.
pub trait Visitor<D: Dim, H> {
    /// Called for each collider the query filter lets through, before its exact test.
    fn collider(&mut self, _handle: ColliderHandle, _collider: &Collider<D>) -> ColliderVisit {
        ColliderVisit::Test
    }
    /// Called for each exact hit.
    fn hit(&mut self, handle: ColliderHandle, collider: &Collider<D>, hit: &H) -> HitVisit;
}

impl<D: Dim, H, F: FnMut(ColliderHandle, &Collider<D>, &H) -> HitVisit> Visitor<D, H> for F {
    fn hit(&mut self, handle: ColliderHandle, collider: &Collider<D>, hit: &H) -> HitVisit {
        self(handle, collider, hit)
    }
}

/// A ray's answer: the closest hit and its collider, if any.
pub type RayCast<D> = Result<Option<(ColliderHandle, <D as Dim>::RayHit)>, WorldError>;

thread_local! {
    /// The broad phase's answer, reused across region queries (a nested query from a visitor
    /// finds it taken and allocates its own).
    static SCRATCH: Cell<Vec<u32>> = const { Cell::new(Vec::new()) };
}

impl<D: Dim, B: BroadPhase<D::Bounds>> World<D, B> {
    /// Visits the colliders the ray hits within `[0, max_t]`, near to far (see the
    /// [`world`](crate::world) module). Errors: a non-finite ray, a NaN `max_t`.
    pub fn visit_ray(
        &self,
        ray: &<D::Bounds as BroadBounds>::Ray,
        max_t: f32,
        filter: &QueryFilter,
        visitor: &mut impl Visitor<D, D::RayHit>,
    ) -> Result<(), WorldError> {
        let (origin, dir) = D::Bounds::ray_parts(ray);
        if !origin.iter().chain(&dir).all(|x| x.is_finite()) {
            return Err(QueryError::NonFiniteArgument("ray").into());
        }
        if max_t.is_nan() {
            return Err(QueryError::NonFiniteArgument("max_t").into());
        }
        if !(max_t >= 0.0) {
            return Ok(());
        }
        self.traverse_cast(
            ray,
            [0.0; 3],
            max_t,
            filter,
            visitor,
            |collider, limit| collider.bounds.ray_entry(ray, limit),
            |collider, limit| D::cast_ray(&collider.shape, &collider.placement, ray, limit),
            D::ray_hit_t,
        )
    }

    /// Visits the colliders a shape moving by `t · velocity` (its placement translated) touches
    /// for `t` in `[0, max_t]`, near to far. The hits are
    /// [`Dim::cast_shape`]'s with the collider as A. Errors: an invalid shape or placement, a
    /// non-finite velocity, a NaN `max_t`.
    pub fn visit_shape_cast(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        velocity: D::Vector,
        max_t: f32,
        filter: &QueryFilter,
        visitor: &mut impl Visitor<D, D::CastHit>,
    ) -> Result<(), WorldError> {
        let moving = D::bounds(shape, placement)?;
        if !D::is_finite(velocity) {
            return Err(WorldError::NonFiniteVelocity);
        }
        if max_t.is_nan() {
            return Err(QueryError::NonFiniteArgument("max_t").into());
        }
        if !(max_t >= 0.0) {
            return Ok(());
        }
        let path = D::ray(D::center(&moving), velocity);
        let (lo, hi) = moving.corners();
        let half = std::array::from_fn(|i| 0.5 * (hi[i] - lo[i]));
        self.traverse_cast(
            &path,
            half,
            max_t,
            filter,
            visitor,
            |collider, limit| D::grown_by(&collider.bounds, &moving).ray_entry(&path, limit),
            |collider, limit| {
                D::cast_shape(&collider.shape, &collider.placement, shape, placement, velocity, limit)
            },
            D::cast_hit_t,
        )
    }

    /// Visits the colliders that touch or overlap the placed shape, in slot order.
    pub fn visit_overlap(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        filter: &QueryFilter,
        visitor: &mut impl Visitor<D, ()>,
    ) -> Result<(), WorldError> {
        let region = D::bounds(shape, placement)?;
        self.traverse_region(&region, filter, visitor, |collider| {
            let mut cache = D::PairCache::default();
            D::intersects(&collider.shape, &collider.placement, shape, placement, &mut cache)
                .map(|touch| touch.then_some(()))
        })
    }

    /// The closest hit of the ray within `[0, max_t]` and its collider (of equal hits, the one
    /// with the lower slot).
    pub fn cast_ray(
        &self,
        ray: &<D::Bounds as BroadBounds>::Ray,
        max_t: f32,
        filter: &QueryFilter,
    ) -> Result<Option<(ColliderHandle, D::RayHit)>, WorldError> {
        let mut best: Option<(ColliderHandle, D::RayHit)> = None;
        self.visit_ray(ray, max_t, filter, &mut |h, _: &Collider<D>, hit: &D::RayHit| {
            let t = D::ray_hit_t(hit);
            // Ties go to the lower slot, whatever order the broad phase visits them in.
            if best.is_none_or(|(b, x)| (t, h) < (D::ray_hit_t(&x), b)) {
                best = Some((h, *hit));
            }
            HitVisit::Clip
        })?;
        Ok(best)
    }

    /// Some collider the ray hits within `[0, max_t]` (the first found, not the closest).
    pub fn cast_ray_any(
        &self,
        ray: &<D::Bounds as BroadBounds>::Ray,
        max_t: f32,
        filter: &QueryFilter,
    ) -> Result<Option<ColliderHandle>, WorldError> {
        let mut found = None;
        self.visit_ray(ray, max_t, filter, &mut |h, _: &Collider<D>, _: &D::RayHit| {
            found = Some(h);
            HitVisit::Stop
        })?;
        Ok(found)
    }

    /// Every collider the ray hits within `[0, max_t]`, with its first hit, into `out` (cleared
    /// first) by increasing `t`.
    pub fn cast_ray_all(
        &self,
        ray: &<D::Bounds as BroadBounds>::Ray,
        max_t: f32,
        filter: &QueryFilter,
        out: &mut Vec<(ColliderHandle, D::RayHit)>,
    ) -> Result<(), WorldError> {
        out.clear();
        self.visit_ray(ray, max_t, filter, &mut |h, _: &Collider<D>, hit: &D::RayHit| {
            out.push((h, *hit));
            HitVisit::Continue
        })?;
        out.sort_by(|x, y| D::ray_hit_t(&x.1).total_cmp(&D::ray_hit_t(&y.1)).then(x.0.cmp(&y.0)));
        Ok(())
    }

    /// The first collider a shape moving by `t · velocity` touches within `[0, max_t]` (of equal
    /// times, the one with the lower slot), with the
    /// hit ([`Dim::cast_shape`] with the collider as A).
    pub fn cast_shape(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        velocity: D::Vector,
        max_t: f32,
        filter: &QueryFilter,
    ) -> Result<Option<(ColliderHandle, D::CastHit)>, WorldError> {
        let mut best: Option<(ColliderHandle, D::CastHit)> = None;
        self.visit_shape_cast(
            shape,
            placement,
            velocity,
            max_t,
            filter,
            &mut |h, _: &Collider<D>, hit: &D::CastHit| {
                let t = D::cast_hit_t(hit);
                // Ties go to the lower slot, whatever order the broad phase visits them in.
                if best.is_none_or(|(b, x)| (t, h) < (D::cast_hit_t(&x), b)) {
                    best = Some((h, *hit));
                }
                HitVisit::Clip
            },
        )?;
        Ok(best)
    }

    /// The colliders touching or overlapping the placed shape, into `out` (cleared first) in slot
    /// order.
    pub fn overlap_shape(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        filter: &QueryFilter,
        out: &mut Vec<ColliderHandle>,
    ) -> Result<(), WorldError> {
        out.clear();
        self.visit_overlap(shape, placement, filter, &mut |h, _: &Collider<D>, _: &()| {
            out.push(h);
            HitVisit::Continue
        })
    }

    /// The colliders whose shapes touch or overlap the box, into `out` (cleared first) in slot
    /// order. Errors: a box that is not finite and ordered.
    pub fn overlap_box(
        &self,
        region: &D::Bounds,
        filter: &QueryFilter,
        out: &mut Vec<ColliderHandle>,
    ) -> Result<(), WorldError> {
        out.clear();
        if !region.is_valid() {
            return Err(QueryError::NonFiniteArgument("region").into());
        }
        let (shape, placement) = D::box_shape(region);
        self.overlap_shape(&shape, &placement, filter, out)
    }

    /// The colliders whose solids contain the point, into `out` (cleared first) in slot order.
    pub fn colliders_at_point(
        &self,
        p: D::Vector,
        filter: &QueryFilter,
        out: &mut Vec<ColliderHandle>,
    ) -> Result<(), WorldError> {
        out.clear();
        if !D::is_finite(p) {
            return Err(QueryError::NonFiniteArgument("point").into());
        }
        let region = D::point_bounds(p);
        let mut visitor = |h, _: &Collider<D>, _: &()| {
            out.push(h);
            HitVisit::Continue
        };
        self.traverse_region(&region, filter, &mut visitor, |collider| {
            D::contains_point(&collider.shape, &collider.placement, p).map(|inside| inside.then_some(()))
        })
    }

    /// The colliders within `max_distance` of the placed shape with their distances (0 when
    /// touching), into `out` (cleared first) by increasing distance.
    pub fn colliders_within(
        &self,
        shape: &D::Shape,
        placement: &D::Placement,
        max_distance: f32,
        filter: &QueryFilter,
        out: &mut Vec<(ColliderHandle, f32)>,
    ) -> Result<(), WorldError> {
        out.clear();
        let bounds = D::bounds(shape, placement)?;
        if !(max_distance >= 0.0 && max_distance.is_finite()) {
            return Err(QueryError::NonFiniteArgument("max_distance").into());
        }
        let region = bounds.expanded(max_distance);
        let mut visitor = |h, _: &Collider<D>, d: &f32| {
            out.push((h, *d));
            HitVisit::Continue
        };
        self.traverse_region(&region, filter, &mut visitor, |collider| {
            D::distance(&collider.shape, &collider.placement, shape, placement)
                .map(|d| (d <= max_distance).then_some(d))
        })?;
        out.sort_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
        Ok(())
    }

    /// The closest hit of each ray (with its `max_t`), into `out` (cleared first) in order; on
    /// threads with the `parallel` feature, with the same answers.
    pub fn cast_rays(
        &self,
        rays: &[(<D::Bounds as BroadBounds>::Ray, f32)],
        filter: &QueryFilter,
        out: &mut Vec<RayCast<D>>,
    ) where
        B: Sync,
        <D::Bounds as BroadBounds>::Ray: Sync,
    {
        out.clear();
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            rays.par_iter()
                .with_min_len(64)
                .map(|(ray, max_t)| self.cast_ray(ray, *max_t, filter))
                .collect_into_vec(out);
        }
        #[cfg(not(feature = "parallel"))]
        out.extend(rays.iter().map(|(ray, max_t)| self.cast_ray(ray, *max_t, filter)));
    }

    /// The traversal of the ray and shape casts: the broad phase's nearest-first
    /// [`cast_box`](BroadPhase::cast_box), each candidate checked against its tight box
    /// (`tight_entry`, the broad phase may hold a box grown by the look-ahead) within the reach,
    /// then through the filter, the visitor's collider level, `exact` (the hit within the reach)
    /// and the visitor's hit level, whose `Clip` shortens the reach of the broad phase too.
    #[allow(clippy::too_many_arguments)]
    fn traverse_cast<H>(
        &self,
        ray: &<D::Bounds as BroadBounds>::Ray,
        half: [f32; 3],
        max_t: f32,
        filter: &QueryFilter,
        visitor: &mut impl Visitor<D, H>,
        tight_entry: impl Fn(&Collider<D>, f32) -> Option<f32>,
        mut exact: impl FnMut(&Collider<D>, f32) -> Result<Option<H>, QueryError>,
        hit_t: impl Fn(&H) -> f32,
    ) -> Result<(), WorldError> {
        const STOP: f32 = -1.0;
        let mut limit = max_t;
        let mut result = Ok(());
        self.broad.cast_box(ray, half, max_t, &mut |slot, _| {
            let Some((handle, collider)) = self.colliders.at(slot as usize) else { return limit };
            if tight_entry(collider, limit.min(f32::MAX)).is_none_or(|t| t > limit)
                || !filter.sees(handle, collider)
            {
                return limit;
            }
            match visitor.collider(handle, collider) {
                ColliderVisit::Skip => return limit,
                ColliderVisit::Stop => return STOP,
                ColliderVisit::Test => {}
            }
            let hit = match exact(collider, limit) {
                Ok(Some(hit)) => hit,
                Ok(None) | Err(QueryError::Unsupported { .. }) => return limit,
                Err(e) => {
                    result = Err(e.into());
                    return STOP;
                }
            };
            match visitor.hit(handle, collider, &hit) {
                HitVisit::Continue => {}
                HitVisit::Clip => limit = limit.min(hit_t(&hit)),
                HitVisit::Stop => return STOP,
            }
            limit
        });
        result
    }

    /// The traversal of the region queries (overlaps, points, distances): the colliders whose
    /// boxes in the broad phase and tight boxes overlap `region`, in slot order, through the
    /// filter, the visitor's collider level, `exact` (the hit, if any) and the visitor's hit
    /// level (`Clip` counts as `Continue`: a region has no reach to shorten).
    fn traverse_region<H>(
        &self,
        region: &D::Bounds,
        filter: &QueryFilter,
        visitor: &mut impl Visitor<D, H>,
        mut exact: impl FnMut(&Collider<D>) -> Result<Option<H>, QueryError>,
    ) -> Result<(), WorldError> {
        let mut ids = SCRATCH.take();
        self.broad.query_box(region, &mut ids);
        let mut result = Ok(());
        for &slot in &ids {
            let Some((handle, collider)) = self.colliders.at(slot as usize) else { continue };
            if !collider.bounds.overlaps(region) || !filter.sees(handle, collider) {
                continue;
            }
            match visitor.collider(handle, collider) {
                ColliderVisit::Skip => continue,
                ColliderVisit::Stop => break,
                ColliderVisit::Test => {}
            }
            let hit = match exact(collider) {
                Ok(Some(hit)) => hit,
                Ok(None) | Err(QueryError::Unsupported { .. }) => continue,
                Err(e) => {
                    result = Err(e.into());
                    break;
                }
            };
            if visitor.hit(handle, collider, &hit) == HitVisit::Stop {
                break;
            }
        }
        SCRATCH.set(ids);
        result
    }
}
