//! The step: broad-phase pairs, filtered, merged into the pair table kept from the previous
//! step, the narrow phase on the pairs that moved, and the events of what changed.

use super::handle::Slots;
use super::{Collider, ColliderHandle, CollisionEvent, Dim, EventKind, World, WorldSettings};
use crate::broad::BroadPhase;

/// One candidate pair (broad-phase boxes overlap, filters allow it) and its memory.
#[derive(Clone, Debug)]
pub(crate) struct PairState<D: Dim> {
    /// The collider with the lower slot.
    a: ColliderHandle,
    b: ColliderHandle,
    /// Whether the shapes touch (at the latest narrow phase).
    touching: bool,
    /// Whether `touching` changed in this step's narrow phase.
    changed: bool,
    /// Whether either collider is a sensor.
    sensor: bool,
    /// The step of the latest narrow phase (0: never).
    computed_at: u64,
    /// The placements at the latest narrow phase.
    a_placement: D::Placement,
    b_placement: D::Placement,
    cache: D::PairCache,
    pub(crate) manifolds: Vec<D::Manifold>,
}

impl<D: Dim> PairState<D> {
    fn key(&self) -> (u32, u32) {
        (self.a.index(), self.b.index())
    }

    fn ended_kind(&self) -> EventKind {
        if self.sensor { EventKind::SensorEnded } else { EventKind::ContactEnded }
    }
}

/// A pair whose shapes touch or (with a prediction distance) nearly touch, and its manifolds.
#[derive(Clone, Copy, Debug)]
pub struct ContactPair<'w, D: Dim> {
    /// The collider with the lower slot.
    pub a: ColliderHandle,
    pub b: ColliderHandle,
    /// Whether the shapes touch (else they are within the prediction distance).
    pub touching: bool,
    /// Normals from A to B.
    pub manifolds: &'w [D::Manifold],
}

impl<D: Dim, B: BroadPhase<D::Bounds>> World<D, B> {
    /// Runs the broad phase, the filters and the narrow phase, and replaces the
    /// [`events`](Self::events) by what changed since the previous step.
    pub fn step(&mut self) {
        self.steps += 1;
        self.events.clear();
        self.broad.find_pairs(&mut self.broad_events);
        self.merge_pairs();
        let (colliders, settings, steps) = (&self.colliders, &self.settings, self.steps);
        let narrow = |pair: &mut PairState<D>| update_pair(pair, colliders, settings, steps);
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            self.pairs.par_iter_mut().with_min_len(64).for_each(narrow);
        }
        #[cfg(not(feature = "parallel"))]
        self.pairs.iter_mut().for_each(narrow);
        for pair in self.pairs.iter().filter(|p| p.changed) {
            let kind = match (pair.sensor, pair.touching) {
                (false, true) => EventKind::ContactBegan,
                (false, false) => EventKind::ContactEnded,
                (true, true) => EventKind::SensorBegan,
                (true, false) => EventKind::SensorEnded,
            };
            self.events.push(CollisionEvent { a: pair.a, b: pair.b, kind });
        }
    }

    /// The pairs that began or stopped touching in the latest step: first those dropped from
    /// the candidates (a collider removed, boxes apart, filtered out), then those whose contact
    /// changed, each group in slot order. The same order with and without `parallel`.
    pub fn events(&self) -> &[CollisionEvent] {
        &self.events
    }

    /// The touching (and, with a prediction distance, nearly touching) non-sensor pairs of the
    /// latest step with their manifolds (empty when neither collider asks for contacts), in slot
    /// order. Pairs with a collider removed since are
    /// left out.
    pub fn contacts(&self) -> impl Iterator<Item = ContactPair<'_, D>> {
        self.pairs
            .iter()
            .filter(|p| !p.sensor && (p.touching || !p.manifolds.is_empty()))
            .filter(|p| self.colliders.slot(p.a).is_ok() && self.colliders.slot(p.b).is_ok())
            .map(|p| ContactPair { a: p.a, b: p.b, touching: p.touching, manifolds: &p.manifolds })
    }

    /// [`contacts`](Self::contacts) with the given collider as A or B.
    pub fn contacts_of(&self, handle: ColliderHandle) -> impl Iterator<Item = ContactPair<'_, D>> {
        self.contacts().filter(move |p| p.a == handle || p.b == handle)
    }

    /// Number of candidate pairs of the latest step: broad-phase boxes overlap and the filters
    /// allow the pair (each had a narrow phase or kept its last one).
    pub fn candidate_pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// The pairs touching after the latest step (sensor pairs included), in slot order.
    pub fn touching_pairs(&self) -> impl Iterator<Item = (ColliderHandle, ColliderHandle)> + '_ {
        self.pairs
            .iter()
            .filter(|p| p.touching)
            .filter(|p| self.colliders.slot(p.a).is_ok() && self.colliders.slot(p.b).is_ok())
            .map(|p| (p.a, p.b))
    }

    /// Rebuilds the pair table from the broad phase's pairs: pairs kept from the previous step
    /// keep their memory, new ones start empty, dropped ones that touched end.
    fn merge_pairs(&mut self) {
        let mut old = std::mem::take(&mut self.pairs).into_iter().peekable();
        let mut new = std::mem::take(&mut self.spare_pairs);
        new.clear();
        for &(i, j) in &self.broad_events.pairs {
            let (Some((a, ca)), Some((b, cb))) =
                (self.colliders.at(i as usize), self.colliders.at(j as usize))
            else {
                continue;
            };
            // Older pairs before this one are no longer candidates.
            while let Some(p) = old.next_if(|p| p.key() < (i, j)) {
                end_if_touching(&p, &mut self.events);
            }
            let kept = match old.next_if(|p| p.key() == (i, j)) {
                // The same slots may hold new colliders: then the old pair ended.
                Some(p) if p.a == a && p.b == b => Some(p),
                Some(p) => {
                    end_if_touching(&p, &mut self.events);
                    None
                }
                None => None,
            };
            let allowed = !(ca.fixed && cb.fixed)
                && ca.filter.allows(&cb.filter)
                && self.pair_filter.as_ref().is_none_or(|f| f.allows(a, ca, b, cb));
            match (allowed, kept) {
                (true, Some(p)) => new.push(p),
                (true, None) => new.push(PairState {
                    a,
                    b,
                    touching: false,
                    changed: false,
                    sensor: ca.sensor || cb.sensor,
                    computed_at: 0,
                    a_placement: ca.placement,
                    b_placement: cb.placement,
                    cache: D::PairCache::default(),
                    manifolds: Vec::new(),
                }),
                (false, Some(p)) => end_if_touching(&p, &mut self.events),
                (false, None) => {}
            }
        }
        for p in old {
            end_if_touching(&p, &mut self.events);
        }
        self.pairs = new;
    }
}

fn end_if_touching<D: Dim>(pair: &PairState<D>, events: &mut Vec<CollisionEvent>) {
    if pair.touching {
        events.push(CollisionEvent { a: pair.a, b: pair.b, kind: pair.ended_kind() });
    }
}

/// The narrow phase of one candidate pair, unless it can keep its last answer.
fn update_pair<D: Dim>(
    pair: &mut PairState<D>,
    colliders: &Slots<Collider<D>>,
    settings: &WorldSettings,
    step: u64,
) {
    pair.changed = false;
    let (Some(ca), Some(cb)) =
        (colliders.value(pair.a.index() as usize), colliders.value(pair.b.index() as usize))
    else {
        return;
    };
    if pair.computed_at > 0 {
        if ca.moved_at <= pair.computed_at && cb.moved_at <= pair.computed_at {
            return;
        }
        let reuse = settings.reuse_distance;
        if reuse > 0.0
            && D::displacement_bound(&ca.shape, &pair.a_placement, &ca.placement) <= reuse
            && D::displacement_bound(&cb.shape, &pair.b_placement, &cb.placement) <= reuse
        {
            return;
        }
    }
    // The world checked both shapes and placements: a query error is a pair of kinds without an
    // algorithm (manifolds with a field), which leaves the manifolds empty.
    let touching =
        D::intersects(&ca.shape, &ca.placement, &cb.shape, &cb.placement, &mut pair.cache).unwrap_or(false);
    pair.manifolds.clear();
    if !pair.sensor && (ca.contacts || cb.contacts) && (touching || settings.prediction > 0.0) {
        let prediction = settings.prediction;
        let result = D::manifolds(
            &ca.shape,
            &ca.placement,
            &cb.shape,
            &cb.placement,
            prediction,
            &mut pair.cache,
            &mut pair.manifolds,
        );
        if result.is_err() {
            pair.manifolds.clear();
        }
    }
    pair.changed = touching != pair.touching;
    pair.touching = touching;
    pair.computed_at = step;
    pair.a_placement = ca.placement;
    pair.b_placement = cb.placement;
}
