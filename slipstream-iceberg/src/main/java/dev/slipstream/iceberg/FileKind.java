/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.ReadPolicy;
import java.util.Locale;

/**
 * What an Iceberg file is, told by its name, and so how Slipstream should read it.
 *
 * <p>Iceberg names its files by what they hold: table metadata ({@code *.metadata.json}), manifest lists
 * and manifests (Avro, {@code *.avro}), statistics (Puffin, {@code *.stats}, {@code *.puffin}), data and
 * delete files ({@code *.parquet}, {@code *.orc}, {@code *.avro}). Metadata is read start to end, so it is
 * read whole from the first byte on; columnar files are read footer first, then column chunks, so only
 * the ranges asked for are fetched, and a parsed Parquet footer plans the chunks; anything else adapts
 * to how it is read.
 */
enum FileKind {
  /** Table metadata, manifest lists, manifests, statistics: read whole. */
  METADATA(ReadPolicy.SEQUENTIAL),
  /** Parquet and ORC: a footer, then column chunks. */
  COLUMNAR(ReadPolicy.RANDOM),
  /** Anything else (version hints, files of other engines). */
  OTHER(ReadPolicy.ADAPTIVE);

  private final ReadPolicy policy;

  FileKind(ReadPolicy policy) {
    this.policy = policy;
  }

  ReadPolicy policy() {
    return policy;
  }

  static FileKind of(String location) {
    String name = location.toLowerCase(Locale.ROOT);
    if (name.endsWith(".parquet") || name.endsWith(".orc")) {
      return COLUMNAR;
    }
    if (name.endsWith(".metadata.json") || name.endsWith(".avro") || name.endsWith(".stats")
        || name.endsWith(".puffin")) {
      return METADATA;
    }
    return OTHER;
  }
}
