/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.List;
import java.util.Objects;

/**
 * One page of a {@link LevelListing}: what one ListObjectsV2 request with delimiter {@code /} returned.
 * Both lists are in S3's key order ({@link S3KeyOrder}), and together they cover one contiguous run of
 * keys: merged with {@link S3KeyOrder}, the pages of a listing concatenate into its children in order.
 *
 * @param objects the objects directly under the prefix (no {@code /} after it in their keys)
 * @param prefixes the common prefixes, each ending in {@code /}: one for every "subdirectory", standing
 *     for all the keys under it (directory marker objects included)
 */
public record LevelPage(List<ListEntry> objects, List<String> prefixes) {
  public LevelPage {
    objects = List.copyOf(Objects.requireNonNull(objects, "objects"));
    prefixes = List.copyOf(Objects.requireNonNull(prefixes, "prefixes"));
  }

  /** Objects and common prefixes in this page together. */
  public int size() {
    return objects.size() + prefixes.size();
  }
}
