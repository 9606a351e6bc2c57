FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
# Inside a container the API must listen on every interface.
ENV BIND_ADDRESS=0.0.0.0 DATA_DIR=/data
VOLUME /data
EXPOSE 6443
CMD ["node", "--import", "tsx", "src/main.ts"]
