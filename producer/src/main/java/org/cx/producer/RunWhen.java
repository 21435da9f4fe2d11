package org.cx.producer;

/** When a producer's task code may run (the screensaver mode). */
public enum RunWhen {
    /** Whenever the thermostat allows. */
    ALWAYS,
    /** Only while the owner is away: no keyboard or mouse input for a while, and the owner's programs quiet. */
    IDLE,
    /** Only within the thermostat's intervals. */
    SCHEDULE
}
