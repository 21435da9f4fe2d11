-- Batches of usage recorded, by the id their sender gave them: a batch sent again (its acknowledgement was lost)
-- is recognised and not recorded twice.
CREATE TABLE batches (
    id          VARCHAR(200) PRIMARY KEY,
    recorded_at BIGINT       NOT NULL, -- epoch milliseconds
    row_count   INTEGER      NOT NULL
);

-- Every price table loaded; a version is in force from its start until the next version's start.
CREATE TABLE price_versions (
    version       INTEGER      PRIMARY KEY,
    in_force_from BIGINT       NOT NULL, -- epoch milliseconds
    loaded_by     VARCHAR(64)  NOT NULL,
    source        TEXT         NOT NULL  -- the file as loaded
);

-- Usage, aggregated per price interval, consumer, computation, producer, its owner and its host type: executions
-- whose effects were applied, other executions of the same tasks (duplicates), and the CPU time both took; and, in
-- rows of no consumer (empty) and computation 0, capacity offered and not used.
CREATE TABLE usage_rows (
    interval_start BIGINT           NOT NULL, -- epoch milliseconds, a multiple of the price interval
    consumer       VARCHAR(64)      NOT NULL,
    computation    BIGINT           NOT NULL,
    producer       VARCHAR(128)     NOT NULL,
    contributor    VARCHAR(64)      NOT NULL,
    host_type      VARCHAR(64)      NOT NULL,
    executions     BIGINT           NOT NULL,
    duplicates     BIGINT           NOT NULL,
    cpu_nanos      BIGINT           NOT NULL,
    offered_nanos  BIGINT           NOT NULL, -- idle worker time offered
    wall_nanos     BIGINT           NOT NULL,
    bytes_in       BIGINT           NOT NULL,
    bytes_out      BIGINT           NOT NULL,
    messages       BIGINT           NOT NULL,
    charged        DOUBLE PRECISION NOT NULL, -- credits charged to the consumer, at the prices in force then
    credited       DOUBLE PRECISION NOT NULL, -- credits given to the contributor, at the prices in force then
    -- interval_start last: no index leads with it, so that a report over a long period scans the table in order
    -- rather than looking each row up through an index
    PRIMARY KEY (consumer, computation, producer, contributor, host_type, interval_start)
);
CREATE INDEX usage_by_consumer ON usage_rows (consumer, interval_start);
CREATE INDEX usage_by_contributor ON usage_rows (contributor, interval_start);

-- Every user's credits so far, kept with each batch: balances are read without summing the usage.
CREATE TABLE balances (
    user_name VARCHAR(64)      PRIMARY KEY,
    charged   DOUBLE PRECISION NOT NULL,
    credited  DOUBLE PRECISION NOT NULL
);
