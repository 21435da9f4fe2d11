package org.cx.producer;

/**
 * What the screensaver rule looks at: the owner's last keyboard or mouse input and how busy the owner's own processes
 * keep the machine. Behind an interface so that tests can play the owner.
 */
interface IdleSource {
    /** What is seen at {@code nowNanos} ({@link System#nanoTime()}). */
    RunPolicy.Sample sample(long nowNanos);
}
