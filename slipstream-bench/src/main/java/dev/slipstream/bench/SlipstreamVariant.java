/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload run by Slipstream with one feature off, to compare in one run with the same workload and the
 * defaults: {@code -unhedged} ({@code hedge.budget=0}, on the {@code heavy-tail} profile, shows what hedging
 * does to the per-request latency and the time of the read), {@code -no-memory-cache} ({@code
 * cache.memory=false}: a re-read from the disk cache instead of memory) and {@code -whole-blocks} ({@code
 * fetch.part.min=1G}: one GET a block, no parts, for links where one connection is as fast as the link).
 * Peers have none of these features: they run only the workload itself.
 */
final class SlipstreamVariant implements Workload {
  /** A variant: the suffix of its name, the setting it changes, and what that means. */
  record Kind(String suffix, String key, String value, String what) {}

  static final Kind UNHEDGED = new Kind("-unhedged", "hedge.budget", "0", "hedged requests off");
  static final Kind NO_MEMORY_CACHE = new Kind("-no-memory-cache", "cache.memory", "false", "its memory cache off");
  static final Kind WHOLE_BLOCKS = new Kind("-whole-blocks", "fetch.part.min", "1G", "blocks in parts off");
  static final List<Kind> KINDS = List.of(UNHEDGED, NO_MEMORY_CACHE, WHOLE_BLOCKS);

  private final Workload inner;
  private final Kind kind;

  SlipstreamVariant(Workload inner, Kind kind) {
    this.inner = inner;
    this.kind = kind;
  }

  @Override
  public String name() {
    return inner.name() + kind.suffix();
  }

  @Override
  public String description() {
    return inner.description() + "; Slipstream with " + kind.what() + " (" + kind.key() + "=" + kind.value() + ")";
  }

  @Override
  public void upload(Fixture fixture) throws IOException {
    inner.upload(fixture);
  }

  @Override
  public Map<String, String> slipstreamSettings() {
    Map<String, String> settings = new HashMap<>(inner.slipstreamSettings());
    settings.put(kind.key(), kind.value());
    return settings;
  }

  @Override
  public String notApplicable(String reader) {
    if (!reader.equals(Readers.SLIPSTREAM) && !reader.equals(Readers.SLIPSTREAM_CORE)) {
      return "a Slipstream variant: see " + inner.name();
    }
    return inner.notApplicable(reader);
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    return inner.prepare(session, fixture);
  }
}
