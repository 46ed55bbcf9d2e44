/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.internal.block.PooledBytes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tier that holds the pieces a test gives it (of one object's bytes), and records every question the
 * chain asks it and every piece offered to it: for tests of what asks the tiers, and in what order.
 */
public final class ScriptedTier implements Tier {
  private final String name;
  private final byte[] data;
  private final Piece.Origin origin;
  private final Set<Piece> held = ConcurrentHashMap.newKeySet();
  private final Set<Piece> lendable = ConcurrentHashMap.newKeySet();
  private final List<String> asked = Collections.synchronizedList(new ArrayList<>());
  private final List<Piece> kept = Collections.synchronizedList(new ArrayList<>());
  private volatile boolean keepsEveryBlock;
  private volatile boolean keepsRanges = true;

  /** A tier called {@code name} in what it records, over the object {@code data}, serving as {@code origin}. */
  public ScriptedTier(String name, byte[] data, Piece.Origin origin) {
    this.name = name;
    this.data = data;
    this.origin = origin;
  }

  /** The tier holds these pieces: a read of (a part of) one hits. */
  public ScriptedTier holding(Piece... pieces) {
    held.addAll(List.of(pieces));
    return this;
  }

  /** The tier lends a buffer holding these blocks (once each). */
  public ScriptedTier lending(Piece... pieces) {
    lendable.addAll(List.of(pieces));
    return this;
  }

  /** The tier wants every block a stream is done with, not only those left before their end. */
  public ScriptedTier keepingEveryBlock() {
    keepsEveryBlock = true;
    return this;
  }

  /** The tier keeps blocks only, no range. */
  public ScriptedTier keepingNoRange() {
    keepsRanges = false;
    return this;
  }

  /** What the chain asked, in order: {@code "<name> read <piece>"}, {@code "<name> block <index>"}, ... */
  public List<String> asked() {
    synchronized (asked) {
      return List.copyOf(asked);
    }
  }

  /** The pieces offered to keep, in order. */
  public List<Piece> kept() {
    synchronized (kept) {
      return List.copyOf(kept);
    }
  }

  static String describe(Piece p) {
    return p.isBlock() ? "block " + p.index() : "range " + p.start() + "+" + p.length();
  }

  @Override
  public Piece.Origin origin() {
    return origin;
  }

  @Override
  public boolean read(Piece piece, int from, byte[] dst, int off, int n) {
    asked.add(name + " read " + describe(piece) + " [" + from + ", " + (from + n) + ")");
    if (!held.contains(piece)) {
      return false;
    }
    System.arraycopy(data, (int) piece.start() + from, dst, off, n);
    return true;
  }

  @Override
  public boolean readBlock(Piece piece, byte[] buffer) {
    asked.add(name + " fill " + describe(piece));
    if (!held.contains(piece)) {
      return false;
    }
    System.arraycopy(data, (int) piece.start(), buffer, 0, piece.length());
    return true;
  }

  @Override
  public void keep(Piece piece, PooledBytes bytes) {
    if (!bytes.isReady()) {
      throw new AssertionError("offered bytes not filled: " + bytes);
    }
    kept.add(piece);
  }

  @Override
  public boolean keeps(Piece piece) {
    return piece.isBlock() || keepsRanges;
  }

  @Override
  public boolean keepsEveryBlock() {
    return keepsEveryBlock;
  }

  @Override
  public byte[] lend(Piece piece, int bufferSize) {
    asked.add(name + " lend " + describe(piece));
    if (!lendable.remove(piece)) {
      return null;
    }
    byte[] buffer = new byte[bufferSize];
    System.arraycopy(data, (int) piece.start(), buffer, 0, piece.length());
    return buffer;
  }

  @Override
  public void served(Piece piece) {
    asked.add(name + " served " + describe(piece));
  }
}
