//! Inserting, moving, re-filtering and removing colliders. Every edit checks everything before
//! changing anything, and updates the broad phase at once.

use super::{Collider, ColliderDesc, ColliderHandle, CollisionFilter, Dim, World, WorldError};
use crate::broad::{BroadBounds, BroadPhase};

impl<D: Dim, B: BroadPhase<D::Bounds>> World<D, B> {
    /// Adds a collider. Errors: a shape or placement the query layer refuses, a box that
    /// overflows, a full world.
    pub fn insert(&mut self, desc: ColliderDesc<D>) -> Result<ColliderHandle, WorldError> {
        let bounds = checked_bounds::<D>(&desc.shape, &desc.placement)?;
        let handle = self.colliders.next_handle()?;
        // Slots stay below `MAX_COLLIDERS`, well under the broad phase's id limit, and the box
        // is valid: the broad phase cannot refuse.
        self.broad.insert(handle.index(), bounds).map_err(|_| WorldError::Full)?;
        let collider = Collider {
            shape: desc.shape,
            placement: desc.placement,
            filter: desc.filter,
            sensor: desc.sensor,
            fixed: desc.fixed,
            contacts: desc.contacts,
            user_data: desc.user_data,
            bounds,
            velocity: None,
            moved_at: self.steps + 1,
        };
        let inserted = self.colliders.insert(collider)?;
        debug_assert_eq!(inserted, handle);
        Ok(handle)
    }

    /// Removes a collider and returns it. Its touching pairs end at the next step (their `ended`
    /// events name the now stale handle).
    pub fn remove(&mut self, handle: ColliderHandle) -> Result<Collider<D>, WorldError> {
        let collider = self.colliders.remove(handle)?;
        self.broad.remove(handle.index()).expect("every live collider is in the broad phase");
        Ok(collider)
    }

    /// Moves a collider to a new placement (a teleport: no velocity).
    pub fn set_placement(
        &mut self,
        handle: ColliderHandle,
        placement: D::Placement,
    ) -> Result<(), WorldError> {
        self.move_collider(handle, placement, None)
    }

    /// Moves a collider to a new placement with its velocity: the broad phase box also covers
    /// where the velocity takes the shape within [`lookahead`](super::WorldSettings::lookahead),
    /// so the pairs of the coming motion are candidates already.
    pub fn set_motion(
        &mut self,
        handle: ColliderHandle,
        placement: D::Placement,
        velocity: D::Vector,
    ) -> Result<(), WorldError> {
        if !D::is_finite(velocity) {
            return Err(WorldError::NonFiniteVelocity);
        }
        self.move_collider(handle, placement, Some(velocity))
    }

    fn move_collider(
        &mut self,
        handle: ColliderHandle,
        placement: D::Placement,
        velocity: Option<D::Vector>,
    ) -> Result<(), WorldError> {
        let slot = self.colliders.slot(handle)?;
        let collider = self.colliders.get(handle)?;
        let bounds = checked_bounds::<D>(&collider.shape, &placement)?;
        let broad_bounds = match velocity {
            Some(v) => {
                let ahead = D::swept(&bounds, D::scaled(v, self.settings.lookahead));
                if !ahead.is_valid() {
                    return Err(WorldError::NonFiniteVelocity);
                }
                ahead
            }
            None => bounds,
        };
        self.broad.update(slot as u32, broad_bounds).expect("a live collider with a valid box");
        let steps = self.steps;
        let collider = self.colliders.get_mut(handle)?;
        collider.placement = placement;
        collider.bounds = bounds;
        collider.velocity = velocity;
        collider.moved_at = steps + 1;
        Ok(())
    }

    /// Changes a collider's layers and group, from the next step.
    pub fn set_filter(&mut self, handle: ColliderHandle, filter: CollisionFilter) -> Result<(), WorldError> {
        self.colliders.get_mut(handle)?.filter = filter;
        Ok(())
    }

    /// Changes a collider's user data.
    pub fn set_user_data(&mut self, handle: ColliderHandle, user_data: u64) -> Result<(), WorldError> {
        self.colliders.get_mut(handle)?.user_data = user_data;
        Ok(())
    }
}

/// The world box of a shape, checked by the query layer and for overflow.
fn checked_bounds<D: Dim>(shape: &D::Shape, placement: &D::Placement) -> Result<D::Bounds, WorldError> {
    let bounds = D::bounds(shape, placement)?;
    if bounds.is_valid() { Ok(bounds) } else { Err(WorldError::UnboundedShape) }
}
