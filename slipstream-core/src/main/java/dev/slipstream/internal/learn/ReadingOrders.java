/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The orders a client's caller declared it reads files in ({@code Slipstream.readingInOrder}): which
 * objects follow the one just opened, so that open-ahead ({@code read.OpenAhead}) can fetch their first
 * blocks. The caller's own lists, at most {@link #MAX_ORDERS} of them, the oldest forgotten first; an order
 * is forgotten once its last object is opened or its caller closes it. Thread-safe; one per client.
 */
public final class ReadingOrders {
  /** Reading orders remembered at once; the oldest is forgotten beyond this. */
  public static final int MAX_ORDERS = 16;

  /** Orders, oldest first. Guarded by {@code this}. */
  private final ArrayDeque<Order> orders = new ArrayDeque<>();

  /** A declared reading order: its objects, and where each stands in it. */
  public static final class Order {
    private final List<ObjectRef> files;
    private final Map<S3Location, Integer> index = new HashMap<>();

    private Order(List<ObjectRef> files) {
      this.files = List.copyOf(files);
      for (int i = 0; i < this.files.size(); i++) {
        index.putIfAbsent(this.files.get(i).location(), i);
      }
    }

    /** The objects, in the order they are read. */
    public List<ObjectRef> files() {
      return files;
    }

    /** Whether {@code location} is one of the objects. */
    public boolean names(S3Location location) {
      return index.containsKey(location);
    }
  }

  /** An order of {@code files}, not yet remembered ({@link #remember}). */
  public static Order of(List<ObjectRef> files) {
    return new Order(files);
  }

  /** Remembers {@code order}, forgetting the oldest beyond {@link #MAX_ORDERS}. */
  public synchronized void remember(Order order) {
    orders.addLast(order);
    while (orders.size() > MAX_ORDERS) {
      orders.pollFirst();
    }
  }

  /**
   * {@code location} was opened: up to {@code max} objects that follow it in the first remembered order
   * naming it (empty if none). An order whose last object it is, is forgotten: nothing is left to follow.
   */
  public synchronized List<ObjectRef> opened(S3Location location, int max) {
    List<ObjectRef> next = null;
    for (Iterator<Order> it = orders.iterator(); it.hasNext(); ) {
      Order o = it.next();
      Integer i = o.index.get(location);
      if (i == null) {
        continue;
      }
      if (i == o.files.size() - 1) {
        it.remove();
      }
      if (next == null) {
        next = o.files.subList(i + 1, Math.min(o.files.size(), i + 1 + max));
      }
    }
    return next == null ? List.of() : next;
  }

  /** Forgets {@code order}; false if it was not remembered (forgotten already). */
  public synchronized boolean forget(Order order) {
    return orders.remove(order);
  }

  /** Forgets every order. */
  public synchronized void clear() {
    orders.clear();
  }
}
