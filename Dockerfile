# The race server image: installed once at build time, so a restart is quick.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY seahaven seahaven
COPY protocol protocol
COPY server server
COPY client client
RUN pip install --no-cache-dir .
EXPOSE 8765
CMD ["seahaven-server", "--host", "0.0.0.0", "--port", "8765"]
