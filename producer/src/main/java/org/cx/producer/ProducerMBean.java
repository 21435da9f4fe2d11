package org.cx.producer;

/** The JMX view of one producer ({@code org.cx:type=Producer,name=…}): reads its counters, changes nothing. */
final class ProducerMBean implements ProducerMXBean {
    private final Producer producer;

    ProducerMBean(Producer producer) {
        this.producer = producer;
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
}
