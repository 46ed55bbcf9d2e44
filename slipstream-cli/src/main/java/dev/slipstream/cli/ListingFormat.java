/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.ListEntry;

/**
 * How {@code ls} prints what it lists, one line per object or common prefix, without the line
 * terminator. A line depends on its entry alone: lines go out as pages arrive, so no column can be
 * sized from the entries still to come.
 */
interface ListingFormat {
  String object(ListEntry entry);

  /** A common prefix ({@code ls} without {@code -r}): a "directory", ending in {@code /}. */
  String prefix(String prefix);
}
