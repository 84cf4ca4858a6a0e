//! Collider handles and the slots they name.
//!
//! A handle is a slot index and the slot's generation when the collider was inserted. Removing a
//! collider bumps its slot's generation, so a handle kept past the removal is stale: it names
//! nothing, also after the slot is reused. Each world also stamps its handles with an 8-bit tag,
//! so a handle from another world is refused (unless the two worlds' tags collide, which needs
//! 256 worlds created between them).

use std::sync::atomic::{AtomicU32, Ordering};

use super::WorldError;

/// Bits of the slot index in [`ColliderHandle`]; the 8 bits above them hold the world's tag.
const SLOT_BITS: u32 = 24;
const SLOT_MASK: u32 = (1 << SLOT_BITS) - 1;

/// The most colliders a world holds at once.
pub const MAX_COLLIDERS: usize = 1 << SLOT_BITS;

/// A collider of a world: 8 bytes, `Copy`, ordered by slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColliderHandle {
    /// The slot index in the low 24 bits, the world's tag above.
    tagged_slot: u32,
    generation: u32,
}

impl ColliderHandle {
    /// The collider's slot: below the number of slots the world ever used, dense, reused after
    /// a removal. Meant for the caller's own per-collider arrays.
    pub fn index(self) -> u32 {
        self.tagged_slot & SLOT_MASK
    }

    /// How many colliders held this slot before this one.
    pub fn generation(self) -> u32 {
        self.generation
    }

    fn tag(self) -> u32 {
        self.tagged_slot >> SLOT_BITS
    }
}

/// A new world's tag, 1 to 255 in turn (0 is never used, so a zeroed handle is always foreign).
fn next_tag() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed) % 255 + 1
}

/// Values in slots with generations, and the free slots.
#[derive(Clone, Debug)]
pub(crate) struct Slots<T> {
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
    len: usize,
    tag: u32,
}

#[derive(Clone, Debug)]
struct Entry<T> {
    generation: u32,
    value: Option<T>,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self { entries: Vec::new(), free: Vec::new(), len: 0, tag: next_tag() }
    }
}

impl<T> Slots<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    /// The handle a value put in `slot` now would get (the slot must be free or new).
    pub fn next_handle(&self) -> Result<ColliderHandle, WorldError> {
        let slot = match self.free.last() {
            Some(&slot) => slot,
            None if self.entries.len() < MAX_COLLIDERS => self.entries.len() as u32,
            None => return Err(WorldError::Full),
        };
        let generation = self.entries.get(slot as usize).map_or(0, |e| e.generation);
        Ok(ColliderHandle { tagged_slot: (self.tag << SLOT_BITS) | slot, generation })
    }

    /// Stores `value` under [`next_handle`](Self::next_handle).
    pub fn insert(&mut self, value: T) -> Result<ColliderHandle, WorldError> {
        let handle = self.next_handle()?;
        match self.free.pop() {
            Some(slot) => self.entries[slot as usize].value = Some(value),
            None => self.entries.push(Entry { generation: 0, value: Some(value) }),
        }
        self.len += 1;
        Ok(handle)
    }

    /// The slot of a live handle of this world.
    pub fn slot(&self, handle: ColliderHandle) -> Result<usize, WorldError> {
        if handle.tag() != self.tag {
            return Err(WorldError::ForeignHandle(handle));
        }
        let slot = handle.index() as usize;
        match self.entries.get(slot) {
            Some(e) if e.generation == handle.generation && e.value.is_some() => Ok(slot),
            _ => Err(WorldError::StaleHandle(handle)),
        }
    }

    pub fn get(&self, handle: ColliderHandle) -> Result<&T, WorldError> {
        let slot = self.slot(handle)?;
        Ok(self.entries[slot].value.as_ref().expect("slot checked live"))
    }

    pub fn get_mut(&mut self, handle: ColliderHandle) -> Result<&mut T, WorldError> {
        let slot = self.slot(handle)?;
        Ok(self.entries[slot].value.as_mut().expect("slot checked live"))
    }

    /// The value in `slot` and its handle, if the slot is occupied.
    pub fn at(&self, slot: usize) -> Option<(ColliderHandle, &T)> {
        let entry = self.entries.get(slot)?;
        let value = entry.value.as_ref()?;
        Some((self.handle_at(slot, entry.generation), value))
    }

    fn handle_at(&self, slot: usize, generation: u32) -> ColliderHandle {
        ColliderHandle { tagged_slot: (self.tag << SLOT_BITS) | slot as u32, generation }
    }

    pub fn remove(&mut self, handle: ColliderHandle) -> Result<T, WorldError> {
        let slot = self.slot(handle)?;
        let entry = &mut self.entries[slot];
        // A generation that would wrap retires the slot instead: no handle ever repeats.
        entry.generation = entry.generation.wrapping_add(1);
        let value = entry.value.take().expect("slot checked live");
        if entry.generation != 0 {
            self.free.push(slot as u32);
        }
        self.len -= 1;
        Ok(value)
    }

    /// Occupied slots in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (ColliderHandle, &T)> {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(slot, e)| e.value.as_ref().map(|v| (self.handle_at(slot, e.generation), v)))
    }

    /// The value in `slot`, without a generation check (for the world's own slot lists).
    pub fn value(&self, slot: usize) -> Option<&T> {
        self.entries.get(slot)?.value.as_ref()
    }

    pub fn memory_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry<T>>() + self.free.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_slot_is_reused_under_a_new_generation_and_the_old_handle_is_stale() {
        let mut slots = Slots::default();
        let a = slots.insert('a').unwrap();
        let b = slots.insert('b').unwrap();
        assert_eq!(slots.remove(a), Ok('a'));
        assert_eq!(slots.get(a), Err(WorldError::StaleHandle(a)));
        assert_eq!(slots.remove(a), Err(WorldError::StaleHandle(a)));
        let c = slots.insert('c').unwrap();
        assert_eq!((c.index(), c.generation()), (a.index(), a.generation() + 1));
        assert_eq!(slots.get(a), Err(WorldError::StaleHandle(a)));
        assert_eq!((slots.get(b), slots.get(c)), (Ok(&'b'), Ok(&'c')));
        assert_eq!(slots.len(), 2);
        assert_eq!(std::mem::size_of::<ColliderHandle>(), 8);
    }

    #[test]
    fn a_handle_of_another_world_is_foreign() {
        let mut first = Slots::default();
        let mut second = Slots::default();
        let h = first.insert(1).unwrap();
        second.insert(2).unwrap();
        assert_eq!(second.get(h), Err(WorldError::ForeignHandle(h)));
    }

    #[test]
    fn a_slot_whose_generation_would_wrap_is_retired() {
        let mut slots = Slots::default();
        let h = slots.insert(0).unwrap();
        slots.entries[h.index() as usize].generation = u32::MAX;
        let h = slots.handle_at(h.index() as usize, u32::MAX);
        slots.remove(h).unwrap();
        let next = slots.insert(1).unwrap();
        assert_ne!(next.index(), h.index());
    }
}
