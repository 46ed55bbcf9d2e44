/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

/**
 * Whether guesses pay: the last {@link #WINDOW} outcomes (used or wasted) of one kind of guess, and the
 * verdict once at least {@link #MIN_OUTCOMES} are known: more wasted than used, and the guessing stops for
 * good. Open-ahead judges itself by it. Not thread-safe: its owner guards it.
 */
public final class GuessOutcomes {
  /** Outcomes remembered to judge whether guessing pays. */
  public static final int WINDOW = 32;
  /** Outcomes needed before a verdict. */
  public static final int MIN_OUTCOMES = 16;

  private final boolean[] outcomes = new boolean[WINDOW];
  private int count;
  private int next;

  /** Records one outcome; true if the window now holds enough of them and more were wasted than used. */
  public boolean recordAndJudge(boolean used) {
    outcomes[next] = used;
    next = (next + 1) % WINDOW;
    count = Math.min(WINDOW, count + 1);
    return count >= MIN_OUTCOMES && count - usedCount() > usedCount();
  }

  /** Outcomes known (at most {@link #WINDOW}). */
  public int count() {
    return count;
  }

  /** Of the outcomes known, those used. */
  public int usedCount() {
    int used = 0;
    for (int i = 0; i < count; i++) {
      used += outcomes[i] ? 1 : 0;
    }
    return used;
  }
}
