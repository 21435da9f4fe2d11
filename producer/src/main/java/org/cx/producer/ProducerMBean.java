package org.cx.producer;

/** The JMX view of one producer ({@code org.cx:type=Producer,name=…}): its counters, and the drain operation. */
final class ProducerMBean implements ProducerMXBean {
    private final Producer producer;

    ProducerMBean(Producer producer) {
        this.producer = producer;
    }

    /** How long a drained producer's running tasks may take to finish. */
    static final java.time.Duration DRAIN_GRACE = java.time.Duration.ofSeconds(30);

    @Override
    public String drain() {
        int cached = producer.cachedTasks();
        Thread.ofPlatform().name("cx-producer-drain").start(() -> producer.shutdown(DRAIN_GRACE));
        return "draining producer " + producer.config().name() + ": " + cached + " cached tasks go back to "
                + producer.serverAddress() + ", running ones may finish for " + DRAIN_GRACE.toSeconds() + " s";
    }

    @Override
    public String getName() {
        return producer.config().name();
    }

    @Override
    public String getServer() {
        return producer.serverAddress();
    }

    @Override
    public int getWorkers() {
        return producer.config().workers();
    }

    @Override
    public int getCachedTasks() {
        return producer.cachedTasks();
    }

    @Override
    public int getTasksAwaitingCode() {
        return producer.tasksAwaitingCode();
    }

    @Override
    public long getTasksRun() {
        return producer.tasksRun();
    }

    @Override
    public long getTasksFailed() {
        return producer.tasksFailed();
    }

    @Override
    public double getIdleFraction() {
        return producer.idleFraction();
    }

    @Override
    public long getFailovers() {
        return producer.failovers();
    }

    @Override
    public long getBundlesFetched() {
        return producer.bundlesFetched();
    }

    @Override
    public String getTaskIsolation() {
        return String.valueOf(producer.isolation());
    }

    @Override
    public long getWorkerRestarts() {
        return producer.workerRestarts();
    }

    @Override
    public String getState() {
        Governor.Status s = producer.ownerStatus();
        return s == null ? RunPolicy.State.RUNNING.name() : s.state().name();
    }

    @Override
    public String getStateReason() {
        Governor.Status s = producer.ownerStatus();
        return s == null ? "running: no owner's rules" : s.why();
    }

    @Override
    public double getCpuCap() {
        Governor.Status s = producer.ownerStatus();
        return s == null ? 1 : s.cap().cpu();
    }

    @Override
    public String getMemoryCap() {
        Governor.Status s = producer.ownerStatus();
        return (s == null ? Thermostat.Memory.UNLIMITED : s.cap().memory()).toString();
    }

    @Override
    public int getOpenWorkers() {
        Governor.Status s = producer.ownerStatus();
        return s == null ? producer.config().workers() : s.openWorkers();
    }

    @Override
    public long getTasksToday() {
        Governor.Status s = producer.ownerStatus();
        return s == null ? producer.tasksRun() : s.tasksToday();
    }

    @Override
    public double getCpuSecondsToday() {
        Governor.Status s = producer.ownerStatus();
        return s == null ? 0 : s.cpuToday();
    }
}
