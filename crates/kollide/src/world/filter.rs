//! Which colliders may touch, and which a scene query sees.

use super::{Collider, ColliderHandle, Dim};

/// Collision layers and groups, tested both ways between two colliders.
///
/// Two colliders in the same non-zero `group` always collide when the group is positive and
/// never when it is negative, whatever their bits (Box2D's rule); otherwise each one's
/// `memberships` must share a bit with the other's `mask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CollisionFilter {
    /// The layers the collider is in.
    pub memberships: u64,
    /// The layers the collider collides with.
    pub mask: u64,
    /// 0 for none; see the type's docs.
    pub group: i32,
}

impl CollisionFilter {
    /// In every layer, colliding with every layer, no group.
    pub const ALL: Self = Self { memberships: u64::MAX, mask: u64::MAX, group: 0 };
    /// In no layer: collides with nothing.
    pub const NONE: Self = Self { memberships: 0, mask: 0, group: 0 };

    /// In layers `memberships`, colliding with layers `mask`, no group.
    pub const fn new(memberships: u64, mask: u64) -> Self {
        Self { memberships, mask, group: 0 }
    }

    /// The same layers in `group`.
    pub const fn with_group(self, group: i32) -> Self {
        Self { group, ..self }
    }

    /// Whether colliders with these two filters may collide.
    pub fn allows(&self, other: &Self) -> bool {
        if self.group != 0 && self.group == other.group {
            return self.group > 0;
        }
        self.memberships & other.mask != 0 && other.memberships & self.mask != 0
    }
}

impl Default for CollisionFilter {
    fn default() -> Self {
        Self::ALL
    }
}

/// A game rule on pairs, run after the layers (one-way platforms, "a bullet never hits its
/// shooter"): `false` keeps the pair from touching this step. Closures
/// `Fn(ColliderHandle, &Collider<D>, ColliderHandle, &Collider<D>) -> bool` are pair filters.
pub trait PairFilter<D: Dim>: Send + Sync {
    /// Whether A and B may touch (called with A's slot below B's).
    fn allows(
        &self,
        a: ColliderHandle,
        a_collider: &Collider<D>,
        b: ColliderHandle,
        b_collider: &Collider<D>,
    ) -> bool;
}

impl<D: Dim, F> PairFilter<D> for F
where
    F: Fn(ColliderHandle, &Collider<D>, ColliderHandle, &Collider<D>) -> bool + Send + Sync,
{
    fn allows(
        &self,
        a: ColliderHandle,
        a_collider: &Collider<D>,
        b: ColliderHandle,
        b_collider: &Collider<D>,
    ) -> bool {
        self(a, a_collider, b, b_collider)
    }
}

/// Which colliders a scene query sees: the layers (the query's `bits` against each collider's
/// filter, both ways, as between two colliders), excluded handles, sensors, and a predicate.
#[derive(Clone, Copy, Default)]
pub struct QueryFilter<'a> {
    /// The query's own layers and group; [`CollisionFilter::ALL`] by default.
    pub bits: CollisionFilter,
    /// Colliders the query skips (the caster itself, say).
    pub exclude: &'a [ColliderHandle],
    /// Skip sensors.
    pub exclude_sensors: bool,
    /// Skip fixed (static) colliders.
    pub exclude_fixed: bool,
    /// Skip the colliders for which this returns `false`.
    pub predicate: Option<&'a (dyn Fn(ColliderHandle) -> bool + Sync)>,
}

impl<'a> QueryFilter<'a> {
    /// Sees every collider.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sees only colliders that may collide with a collider of these layers.
    pub fn with_bits(self, bits: CollisionFilter) -> Self {
        Self { bits, ..self }
    }

    /// Skips these colliders.
    pub fn excluding(self, exclude: &'a [ColliderHandle]) -> Self {
        Self { exclude, ..self }
    }

    /// Skips the colliders for which `predicate` returns `false`.
    pub fn with_predicate(self, predicate: &'a (dyn Fn(ColliderHandle) -> bool + Sync)) -> Self {
        Self { predicate: Some(predicate), ..self }
    }

    /// Whether the query sees this collider.
    pub fn sees<D: Dim>(&self, handle: ColliderHandle, collider: &Collider<D>) -> bool {
        let excluded_kind =
            (self.exclude_sensors && collider.sensor) || (self.exclude_fixed && collider.fixed);
        !excluded_kind
            && self.bits.allows(&collider.filter)
            && !self.exclude.contains(&handle)
            && self.predicate.is_none_or(|p| p(handle))
    }
}

impl std::fmt::Debug for QueryFilter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryFilter")
            .field("bits", &self.bits)
            .field("exclude", &self.exclude)
            .field("exclude_sensors", &self.exclude_sensors)
            .field("exclude_fixed", &self.exclude_fixed)
            .field("predicate", &self.predicate.map(|_| "..."))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::CollisionFilter;

    #[test]
    fn layers_are_tested_both_ways_and_groups_override_them() {
        let player = CollisionFilter::new(0b01, 0b10);
        let enemy = CollisionFilter::new(0b10, 0b01);
        let ghost = CollisionFilter::new(0b10, 0b00);
        assert!(player.allows(&enemy) && enemy.allows(&player));
        // The ghost is in a layer the player sees, but sees no layer of the player's.
        assert!(!player.allows(&ghost) && !ghost.allows(&player));
        // A positive group collides whatever the bits, a negative one never.
        assert!(ghost.with_group(3).allows(&player.with_group(3)));
        assert!(!player.with_group(-3).allows(&enemy.with_group(-3)));
        // Different groups fall back to the bits.
        assert!(player.with_group(-3).allows(&enemy.with_group(-4)));
        assert!(!CollisionFilter::NONE.allows(&CollisionFilter::ALL));
    }
}
