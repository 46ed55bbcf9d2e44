/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A workload run by Slipstream with hedged requests off ({@code hedge.budget=0}): beside the same workload
 * with the defaults in one run, on the {@code heavy-tail} profile, it shows what hedging does to the
 * per-request latency and the time of the read. Peers do not hedge: they run only the workload itself.
 */
final class UnhedgedWorkload implements Workload {
  static final String SUFFIX = "-unhedged";

  private final Workload inner;

  UnhedgedWorkload(Workload inner) {
    this.inner = inner;
  }

  @Override
  public String name() {
    return inner.name() + SUFFIX;
  }

  @Override
  public String description() {
    return inner.description() + "; Slipstream with hedged requests off (hedge.budget=0)";
  }

  @Override
  public void upload(Fixture fixture) throws IOException {
    inner.upload(fixture);
  }

  @Override
  public Map<String, String> slipstreamSettings() {
    Map<String, String> settings = new HashMap<>(inner.slipstreamSettings());
    settings.put("hedge.budget", "0");
    return settings;
  }

  @Override
  public String notApplicable(String reader) {
    if (!reader.equals(Readers.SLIPSTREAM) && !reader.equals(Readers.SLIPSTREAM_CORE)) {
      return "only Slipstream hedges: see " + inner.name();
    }
    return inner.notApplicable(reader);
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    return inner.prepare(session, fixture);
  }
}
