# The race server image: installed once at build time, so a restart is quick.
FROM python:3.11-slim
WORKDIR /app
# The lock's pins and hashes first (a layer kept until requirements/server.txt changes), the
# project itself without dependencies after.
COPY requirements/server.txt requirements/server.txt
RUN pip install --no-cache-dir --require-hashes -r requirements/server.txt
COPY pyproject.toml README.md ./
COPY seahaven seahaven
COPY protocol protocol
COPY server server
COPY client client
RUN pip install --no-cache-dir --no-deps .
EXPOSE 8765
CMD ["seahaven-server", "--host", "0.0.0.0", "--port", "8765"]
